import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactDeep, redactedJson, redactorFrom } from '../../src/llm/redact.js';
import { SECRET_HINT, secretShaped } from '../../src/llm/secret-shapes.js';
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

  it('redactedJson writes what JSON.stringify(redactDeep(value)) writes, for every corpus text anywhere in a structure', () => {
    const r = redactorFrom({ OPENAI_API_KEY: 'troupe-SENTINEL-key-7f3a9c1e5b' });
    const texts = [...corpus.secret.map(([t]) => t), ...corpus.plain, 'troupe-SENTINEL-key-7f3a9c1e5b', 'a trip to Asia with a password manager', 'line\nsk-proj-ABCDEFGHIJKLMNOPQRST'];
    for (const t of texts) {
      const values = [t, [t], { a: { b: [1, t, null] }, c: 'plain' }, { list: [{ text: 'plain' }, { text: t }], n: 3, flag: true }];
      for (const v of values) expect(redactedJson(v, r), t).toBe(JSON.stringify(redactDeep(v, r)));
    }
    // What a value shows through toJSON() is what is redacted, as JSON.stringify reads it.
    const dated = { at: { toJSON: () => 'sk-proj-ABCDEFGHIJKLMNOPQRST' }, plain: 'x' };
    expect(redactedJson(dated, r)).toBe('{"at":"sk-proj-[redacted]","plain":"x"}');
  });

  it('redactedJson never changes the value it is given', () => {
    const value = { a: [{ t: 'Bearer 9f8e7d6c5b4a39281706' }], b: { c: 'plain' } };
    const before = JSON.stringify(value);
    expect(redactedJson(value, redact)).toContain('Bearer [redacted]');
    expect(JSON.stringify(value)).toBe(before);
  });

  it('the hint screen, grouped by first letter, matches exactly where the plain alternation does', () => {
    const plain = /sk-|rk-|xai-|_live_|_test_|gsk_|AKIA|ASIA|aws_secret|gh[pousr]_|github_pat_|xox|AIza|basic|bearer|passw|pwd/i;
    const parts = [
      'sk-',
      'SK-',
      'rk',
      '-',
      'xai-',
      'xox',
      'XoX',
      '_live_',
      '_test',
      '_',
      'gsk_',
      'ghp_',
      'GHS_',
      'gh',
      'github_pat_',
      'akia',
      'ASIA',
      'asi',
      'aws_secret',
      'AIza',
      'bearer',
      'BEAR',
      'basic',
      'BaSiC',
      'bas',
      'passw',
      'PaSsW',
      'pwd',
      'pw',
      'a',
      's',
      'k',
      ' ',
      'é',
      '\n',
    ];
    let seed = 11;
    const pick = () => parts[(seed = (seed * 1103515245 + 12345) % 2147483648) % parts.length]!;
    for (let i = 0; i < 5_000; i++) {
      const text = Array.from({ length: 1 + (i % 9) }, pick).join('');
      expect(SECRET_HINT.test(text), JSON.stringify(text)).toBe(plain.test(text));
    }
    for (const t of [...corpus.secret.map(([x]) => x), ...corpus.plain]) expect(SECRET_HINT.test(t), t).toBe(plain.test(t));
  });
});
