import { describe, expect, it } from 'vitest';
import { redactorFrom } from '../../src/llm/redact.js';

// Hostile: gateway keys people choose themselves have no digit (a passphrase), so they are not
// "secret-shaped"; a proxy that echoes the key it refused would put it in the session file.
describe('OPENAI_API_KEY', () => {
  it('is redacted whatever its shape once it is long enough to be a key, not a word', () => {
    for (const key of ['correct-horse-battery-staple', 'lowercaseonlygatewaykey', 'ABCDEFGHIJKLMNOPQRSTUV']) {
      const redact = redactorFrom({ OPENAI_API_KEY: key });
      expect(redact(`Incorrect API key provided: ${key}.`), key).toBe('Incorrect API key provided: [redacted].');
      expect(redact.screen?.test(JSON.stringify({ m: `key ${key}` })), key).toBe(true);
    }
  });

  it('a short placeholder (local servers need none) is left alone', () => {
    for (const key of ['ollama', 'none', 'dummy', 'not-needed']) expect(redactorFrom({ OPENAI_API_KEY: key })(`using ${key} here`)).toBe(`using ${key} here`);
  });
});
