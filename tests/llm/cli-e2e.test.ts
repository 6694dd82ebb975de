import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { FakeOpenAIServer, streamChunks } from '../helpers/fake-openai-server.js';
import { REPO_ROOT } from '../helpers/team.js';

const run = promisify(execFile);
const CLI = join(REPO_ROOT, 'dist', 'cli.js');
let server: FakeOpenAIServer | null = null;
// Sessions these runs save go to a private data dir, removed afterwards.
const data = mkdtempSync(join(tmpdir(), 'troupe-cli-e2e-'));
afterAll(() => rmSync(data, { recursive: true, force: true }));
afterEach(async () => {
  await server?.stop();
  server = null;
});

async function troupe(args: string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), TROUPE_DATA_DIR: data, ...env }, cwd: tmpdir() });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const strip = (events: Record<string, unknown>[]) => events.map(({ at: _a, session_id: _s, ...rest }) => rest);

function studioServer(): Promise<FakeOpenAIServer> {
  return new FakeOpenAIServer([
    { stream: streamChunks('Concept: tides.', { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' }, { usage: { prompt_tokens: 1000, completion_tokens: 100 } }) },
    { stream: streamChunks('A loop.', { transition: 'RESPOND_TO_USER' }, { usage: { prompt_tokens: 2000, completion_tokens: 200 } }) },
  ]).start();
}

describe('troupe run against an OpenAI-compatible server (dist/cli.js)', () => {
  it('--record then --replay prints the same events; the usage summary goes to stderr with --json', async () => {
    server = await studioServer();
    const file = join(mkdtempSync(join(tmpdir(), 'troupe-cli-')), 'rec.jsonl');
    const live = await troupe(['run', 'a tide game', '--json', '--record', file], { OPENAI_BASE_URL: server.baseURL, TROUPE_MODEL: 'gpt-4o-mini' });
    expect(live.code).toBe(0);
    const events = lines(live.stdout);
    expect(events.filter((e) => e.type === 'usage').map((e) => e.cost)).toEqual([0.00021, 0.00042]);
    expect(events.at(-1)).toMatchObject({ type: 'session_detached', reason: 'awaiting_user' });
    expect(live.stderr).toContain('usage: 2 call(s), 3,300 tokens (3,000 prompt + 300 completion), cost $0.0006');
    expect(server.requests.map((r) => r.body.model)).toEqual(['gpt-4o-mini', 'gpt-4o-mini']);
    await server.stop();
    server = null;

    const replay = await troupe(['run', 'a tide game', '--json', '--replay', file], { TROUPE_MODEL: 'gpt-4o-mini' });
    expect(replay.code).toBe(0);
    // The same events, except that the replay names itself as the session's model (it calls none).
    const replayed = strip(lines(replay.stdout));
    expect(replayed[0]).toMatchObject({ type: 'session_started', model: `replay of ${file} (recorded on ${String(events[0]!.model)})` });
    const withoutModel = (e: Record<string, unknown>[]) => e.map((x) => (x.type === 'session_started' ? { ...x, model: '' } : x));
    expect(withoutModel(replayed)).toEqual(withoutModel(strip(events)));

    const diverged = await troupe(['run', 'another game', '--replay', file], { TROUPE_MODEL: 'gpt-4o-mini' });
    expect(diverged.code).toBe(1);
    expect(diverged.stderr.trim().split('\n').at(-1)).toMatch(/^troupe: replay diverged at call 1 \(persona creative_partner\): messages\[\d+\] \(\w+\) differs at character \d+/);
  });

  it('prints the usage summary after the transcript, naming a model with no price', async () => {
    server = await studioServer();
    const out = await troupe(['run', 'a tide game'], { OPENAI_BASE_URL: server.baseURL, TROUPE_MODEL: 'my-local-model' });
    expect(out.code).toBe(0);
    const tail = out.stdout.trim().split('\n').slice(-4);
    expect(tail[0]).toBe('usage: 2 call(s), 3,300 tokens (3,000 prompt + 300 completion), cost unknown (no price)');
    expect(tail[1]).toMatch(/^ {2}Creative Partner +1,100 tokens +1 call\(s\) +cost unknown \(no price\)$/);
    expect(tail[3]).toMatch(/^ {2}no price for model my-local-model — add it to .*pricing\.json/);
  });

  it('401 and an unreachable server end the run with a one-line reason, no stack trace', async () => {
    server = await new FakeOpenAIServer([{ status: 401, body: { error: { message: 'Incorrect API key provided: sk-abcdefghijklmnopqrstuvwxyz' } } }]).start();
    const denied = await troupe(['run', 'x'], { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-abcdefghijklmnopqrstuvwxyz' });
    // The error is told in full once; the failed move and the pause point to it.
    expect(denied.stdout).toMatch(/^ {2}• error: 401 unauthorised at 127\.0\.0\.1:\d+: the API key was rejected — check OPENAI_API_KEY/m);
    expect(denied.stdout).toContain("◂ waiting for you: Creative Partner's turn failed: the error above; !continue retries");
    // Said once: the pause that lets go of the session no longer says it again ("Session paused: waiting for you — ...").
    expect(denied.stdout).not.toContain('Session paused');
    expect(denied.stdout + denied.stderr).not.toContain('abcdefghijklmnop');
    expect(denied.stdout + denied.stderr).not.toMatch(/\n\s+at /);
    const url = server.baseURL;
    await server.stop();
    server = null;
    const down = await troupe(['run', 'x'], { OPENAI_BASE_URL: url, TROUPE_RETRIES: '0' });
    expect(down.stdout).toMatch(/^ {2}• error: cannot reach the model server at 127\.0\.0\.1:\d+ — check OPENAI_BASE_URL and that the server is running/m);
    expect(down.stdout).toContain("◂ waiting for you: Creative Partner's turn failed: the error above; !continue retries");
  });

  it('a remote base URL without a key is a one-line error, exit 1', async () => {
    const out = await troupe(['run', 'x'], { OPENAI_BASE_URL: 'https://api.groq.com/openai/v1' });
    expect(out.code).toBe(1);
    expect(out.stderr).toBe('troupe: OPENAI_BASE_URL points at api.groq.com but OPENAI_API_KEY is not set — export OPENAI_API_KEY, or unset OPENAI_BASE_URL for the offline demo\n');
  });

  it('--record and --replay together are a usage error', async () => {
    const out = await troupe(['run', 'x', '--record', 'a', '--replay', 'b']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^troupe: --record and --replay cannot be used together/);
  });
});
