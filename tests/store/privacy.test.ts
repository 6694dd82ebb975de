import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { redactDeep, redactedJson, redactorFrom } from '../../src/llm/redact.js';
import { completion, FakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { cleanEnv, runCli, runCliProcess, testDataDir } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';
import { storedDocumentText } from '../helpers/stored-document.js';

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
    const text = readdirSync(join(data, 'sessions'))
      .map((f) => readFileSync(join(data, 'sessions', f), 'utf8'))
      .join('\n');
    expect(text).toContain('401');
    // The adapter reports the 401 in its own words (the server's echo of the key is never copied).
    expect(text).toContain('the API key was rejected');
    expect(text).not.toContain(SENTINEL);
    expect(text.toLowerCase()).not.toContain('authorization: bearer troupe');
    expect(text).not.toMatch(/bearer\s+(?!\[redacted\]|…)[A-Za-z0-9]/i);
  });

  it('redacts configured secrets, bearer tokens and sk- keys from serialised text', () => {
    const redact = redactorFrom({ OPENAI_API_KEY: 'abc"def-123456', MY_SERVICE_TOKEN: 'tok-9f8e7d6c5b4a', GIT_AUTHOR_NAME: 'Ada Lovelace', SHORT_KEY: 'x' });
    const text = JSON.stringify({ a: 'key abc"def-123456 here', b: 'tok-9f8e7d6c5b4a', c: 'Authorization: Bearer xyz.abc-123456', d: 'sk-proj-ABCDEFGHIJKLMNOPQRST', e: 'Ada Lovelace' });
    const out = redact(text);
    expect(out).not.toContain('abc\\"def-123456');
    expect(out).not.toContain('tok-9f8e7d6c5b4a');
    expect(out).toContain('Bearer [redacted]');
    expect(out).toContain('sk-proj-[redacted]');
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

  it('an env secret holding a common word (APP_SECRET=awaiting_user) leaves the session readable', async () => {
    const env = cleanEnv({ APP_SECRET: 'awaiting_user', TROUPE_DEMO_PACE_MS: '0' });
    // A real process: the store reads the secrets of its own environment.
    expect((await runCliProcess(['run', '--demo', 'A lighthouse keeper game'], env)).code).toBe(0);
    // The document as its last checkpoint left it: its newest slot (see checkpoint-slots.ts).
    const doc = storedDocumentText(join(testDataDir(), 'sessions', readdirSync(join(testDataDir(), 'sessions')).find((f) => f.endsWith('.json') && f !== 'index.json')!));
    expect(doc).toContain('"status":"awaiting_user"');
    expect(doc).not.toContain('[redacted]');
    const sessions = await runCliProcess(['sessions'], env);
    expect(sessions.stdout).toMatch(/ 10 +waiting: complete /);
    expect(sessions.stdout).not.toContain('unreadable');
    expect((await runCliProcess(['show'], env)).code).toBe(0);
    expect((await runCliProcess(['resume', '--demo'], env, '!quit\n')).code).toBe(0);
  });

  it('--json, the transcript, show and export never print keys or Bearer tokens, and the files do not hold them', async () => {
    const key = 'sk-proj-Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789';
    const bearer = 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.dozjgNryP4J3jVmNHl0w5N';
    const brief = `Wire the CI: ${key}, ${bearer}, ghp_0123456789abcdefghijABCDEFGHIJ012345, AKIAIOSFODNN7EXAMPLE, password=hunter2`;
    const env = cleanEnv({ TROUPE_DEMO_PACE_MS: '0' });
    const secrets = ['Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789', 'eyJhbGciOiJIUzI1NiJ9', '0123456789abcdefghijABCDEFGHIJ012345', 'IOSFODNN7EXAMPLE', 'hunter2'];
    const outputs: string[] = [];
    const json = await runCli(['run', '--demo', '--json', brief], env);
    expect(json.stdout).toContain('sk-proj-[redacted]');
    const id = JSON.parse(json.stdout.split('\n')[0]!).session_id as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    outputs.push(json.stdout, (await runCli(['run', '--demo', brief], env)).stdout);
    for (const args of [
      ['show', id],
      ['export', id],
      ['export', id, 'json'],
    ]) {
      const out = await runCli(args, env);
      expect(out.code, args.join(' ')).toBe(0);
      expect(out.stdout, args.join(' ')).toContain('[redacted]');
      outputs.push(out.stdout);
    }
    outputs.push(...readdirSync(join(testDataDir(), 'sessions')).map((f) => readFileSync(join(testDataDir(), 'sessions', f), 'utf8')));
    for (const text of outputs) for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
