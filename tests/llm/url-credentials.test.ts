import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { redactorFrom } from '../../src/llm/redact.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { FakeOpenAIServer } from '../helpers/fake-openai-server.js';

// Hostile: a password in OPENAI_BASE_URL (basic auth in front of a model server) that no credential
// shape knows, and a server (or proxy) whose error body echoes what it was sent.
const USER = 'alice';
const PASSWORD = 'Hunter2pass9Zq';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');

let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

/** Every file under a directory, as text. */
function allText(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    out += statSync(path).isDirectory() ? allText(path) : readFileSync(path, 'utf8');
  }
  return out;
}

describe('a base URL carrying a user name and password', () => {
  it('redactorFrom removes the password of a URL in the environment, and a Basic authorization, wherever they appear', () => {
    const redact = redactorFrom({ OPENAI_BASE_URL: `https://${USER}:${PASSWORD}@models.example/v1`, HTTPS_PROXY: 'http://bob:Pr0xyPa55wordQ@proxy:3128' });
    const echoed = `denied ${USER}/${PASSWORD}; sent Authorization: Basic ${BASIC}; proxy said Pr0xyPa55wordQ`;
    const out = redact(echoed);
    expect(out).not.toContain(PASSWORD);
    expect(out).not.toContain(BASIC);
    expect(out).not.toContain('Pr0xyPa55wordQ');
    expect(redact.screen?.test(JSON.stringify({ body: echoed }))).toBe(true);
    // A word is left alone: only the URL's password, not its user name or host; "basic" before a word is prose.
    // OPENAI_BASE_URL's password goes to the model server: redacted even when it is a plain word.
    expect(redactorFrom({ OPENAI_BASE_URL: 'https://me:gatewaysecret@models.example/v1' })('echoed gatewaysecret')).toBe('echoed [redacted]');
    // Another variable's URL with a word for a password (a local database) does not make the word a secret.
    const local = redactorFrom({ DATABASE_URL: 'postgres://postgres:postgres@localhost/db' });
    expect(local('connect to postgres as postgres')).toBe('connect to postgres as postgres');
    expect(local(`Authorization: Basic ${Buffer.from('postgres:postgres').toString('base64')}`)).toBe('Authorization: Basic [redacted]');
    for (const plain of ['alice went to models.example', 'Basic Authentication is used', 'a basic 12345678 step', 'basic dGhpcyBpcyBwcm9zZQ== (no colon)']) expect(redact(plain)).toBe(plain);
    // Without the environment, a Basic authorization is still recognised by its shape.
    expect(redactorFrom({})(`Authorization: basic ${BASIC}`)).toBe('Authorization: basic [redacted]');
  });

  it('never reaches the session files, the transcript or stderr when the server echoes it in an error', async () => {
    server = await new FakeOpenAIServer(() => ({
      status: 400,
      body: { error: { message: `rejected ${USER}/${PASSWORD} (Authorization: Basic ${BASIC})`, type: 'invalid_request_error' } },
    })).start();
    const url = server.baseURL.replace('http://', `http://${USER}:${PASSWORD}@`);
    const env = cleanEnv({ OPENAI_BASE_URL: url, TROUPE_MODEL: 'test-model', TROUPE_RETRIES: '0' });
    const out = await runCli(['run', 'hello', '--json'], env);
    // The server saw the credentials (they are sent), and the call failed with its message.
    expect(server.requests[0]?.headers.authorization).toBe(`Basic ${BASIC}`);
    expect(out.stdout + out.stderr).toContain('rejected');
    const stored = allText(env.TROUPE_DATA_DIR!);
    expect(stored).toContain('rejected');
    for (const text of [out.stdout, out.stderr, stored]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(BASIC);
    }
  });
});
