import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactDeep, redactorFrom } from '../../src/llm/redact.js';
import { secretShaped } from '../../src/llm/secret-shapes.js';
import { REPO_ROOT } from '../helpers/team.js';

const corpus = JSON.parse(readFileSync(join(REPO_ROOT, 'tests', 'fixtures', 'secrets', 'corpus.json'), 'utf8')) as { secret: [string, string][]; plain: string[] };
const redact = redactorFrom({});

describe('the redactor', () => {
  it.each(corpus.secret)('removes a key shape: %s', (text, secret) => {
    const out = redact(text);
    expect(out).not.toContain(secret);
    expect(out).toContain('[redacted]');
  });

  it.each(corpus.plain)('leaves text that is not secret-shaped alone: %s', (text) => {
    expect(redact(text)).toBe(text);
  });

  it('redacts the configured key and env secrets only when their values are secret-shaped', () => {
    const env = {
      OPENAI_API_KEY: 'troupe-SENTINEL-key-7f3a9c1e5b',
      APP_SECRET: 'awaiting_user',
      AUTH_MODE: 'oauth2',
      SSH_AUTH_SOCK: '/tmp/ssh-XXXXabc123/agent.4567',
      DB_PASSWORD: 'Qz7-wP2m!xK9vL4t',
      MY_SERVICE_TOKEN: 'true',
      GIT_AUTHOR_NAME: 'Ada Lovelace 1815 Analytical',
    };
    const r = redactorFrom(env);
    expect(r('the server said troupe-SENTINEL-key-7f3a9c1e5b is wrong')).toBe('the server said [redacted] is wrong');
    expect(r('connect with Qz7-wP2m!xK9vL4t')).toBe('connect with [redacted]');
    for (const plain of ['awaiting_user', 'status: awaiting_user', 'oauth2 login', 'true', '/tmp/ssh-XXXXabc123/agent.4567', 'Ada Lovelace 1815 Analytical']) expect(r(plain)).toBe(plain);
  });

  it('secret-shaped: long, letters and digits, varied; never a word, a path or a URL', () => {
    for (const v of ['troupe-SENTINEL-key-7f3a9c1e5b', 'Qz7-wP2m!xK9vL4t', '3f786850e387550fdab836ed7e6dc881']) expect(secretShaped(v), v).toBe(true);
    for (const v of ['awaiting_user', 'production', 'aaaaaaaaaaaa1111', '/usr/local/bin/x1', 'https://host/v1', 'two words 12345678']) expect(secretShaped(v), v).toBe(false);
  });

  it('is applied to values: the structure and keys stay, strings inside are redacted, however deep', () => {
    const value = { status: 'awaiting_user', nested: [{ text: 'key sk-proj-Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789' }, 3, null, true], 'sk-not-a-key-name': 'x' };
    expect(redactDeep(value, redact)).toEqual({ status: 'awaiting_user', nested: [{ text: 'key sk-proj-[redacted]' }, 3, null, true], 'sk-not-a-key-name': 'x' });
    expect(value.nested[0]).toEqual({ text: 'key sk-proj-Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789' });
    let deep: unknown = 'Bearer 9f8e7d6c5b4a39281706';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let out = redactDeep(deep, redact) as unknown;
    while (Array.isArray(out)) out = out[0];
    expect(out).toBe('Bearer [redacted]');
  });
});
