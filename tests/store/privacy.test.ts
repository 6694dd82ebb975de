import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { redactDeep, redactedJson, redactorFrom } from '../../src/llm/redact.js';
import { completion, FakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { REPO_ROOT } from '../helpers/team.js';

// Not sk-shaped on purpose: the store must catch the configured key itself, not only key-like text.
const SENTINEL = 'troupe-SENTINEL-key-7f3a9c1e5b';
let server: FakeOpenAIServer | null = null;
let data = '';
afterEach(async () => {
  await server?.stop();
  server = null;
  rmSync(data, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('privacy', () => {
  it('never writes the API key or authorization headers to the session file, even when the server echoes them', async () => {
    server = await new FakeOpenAIServer([
      { body: completion('Concept: a keeper of a fragile light.', { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' }) },
      // A server error that echoes the key and the header back into the error message.
      { status: 401, body: { error: { message: `Incorrect API key provided: ${SENTINEL} (Authorization: Bearer ${SENTINEL})`, type: 'invalid_request_error' } } },
    ]).start();
    data = mkdtempSync(join(tmpdir(), 'troupe-privacy-'));
    const out = await run(['run', 'A lighthouse keeper game', '--json'], { OPENAI_API_KEY: SENTINEL, OPENAI_BASE_URL: server.baseURL, TROUPE_DATA_DIR: data, TROUPE_MODEL: 'test-model' });
    // The run ended on the model's failure, so it exits non-zero (the session is saved and resumable).
    expect(out.code).toBe(1);
    // The key really was in play: the server saw it.
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${SENTINEL}`);
    expect(server.requests).toHaveLength(2);
    // The document and the journal both.
    const text = readdirSync(join(data, 'sessions')).map((f) => readFileSync(join(data, 'sessions', f), 'utf8')).join('\n');
    expect(text).toContain('401');
    // The adapter reports the 401 in its own words (the server's echo of the key is never copied).
    expect(text).toContain('the API key was rejected');
    expect(text).not.toContain(SENTINEL);
    expect(text.toLowerCase()).not.toContain('authorization: bearer troupe');
    expect(text).not.toMatch(/bearer\s+(?!\[redacted\]|…)[A-Za-z0-9]/i);
  });

  it('redacts configured secrets, bearer tokens and sk- keys from serialised text', () => {
    const redact = redactorFrom({ OPENAI_API_KEY: 'abc"def-123456', MY_SERVICE_TOKEN: 'tok-999999999', GIT_AUTHOR_NAME: 'Ada Lovelace', SHORT_KEY: 'x' });
    const text = JSON.stringify({ a: 'key abc"def-123456 here', b: 'tok-999999999', c: 'Authorization: Bearer xyz.abc-123456', d: 'sk-proj-ABCDEFGHIJKLMNOPQRST', e: 'Ada Lovelace' });
    const out = redact(text);
    expect(out).not.toContain('abc\\"def-123456');
    expect(out).not.toContain('tok-999999999');
    expect(out).toContain('Bearer [redacted]');
    expect(out).toContain('sk-[redacted]');
    expect(out).toContain('Ada Lovelace');
    expect(JSON.parse(out).a).toBe('key [redacted] here');
  });

  it('serialises redacted JSON as redactDeep does, also where only the raw strings match (an escaped newline before a key)', () => {
    const redact = redactorFrom({ OPENAI_API_KEY: 'abc"def-123456' });
    const values = [
      { a: 'line\nsk-proj-ABCDEFGHIJKLMNOPQRST', b: ['Bearer\txyz.abc-123456'], c: { d: 'key abc"def-123456 here' } },
      { plain: 'nothing secret, risk-free task-based talk', n: 3, nested: [{ s: 'ok' }] },
    ];
    for (const value of values) expect(redactedJson(value, redact)).toBe(JSON.stringify(redactDeep(value, redact)));
    expect(redactedJson(values[0], redact)).not.toMatch(/ABCDEFGHIJ|xyz\.abc|def-123456/);
  });
});
