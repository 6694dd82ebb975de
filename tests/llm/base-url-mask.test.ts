import { describe, expect, it } from 'vitest';
import { maskUrl, parseBaseUrl } from '../../src/llm/base-url.js';
import { UserError } from '../../src/llm/errors.js';

// Probe (round 10): an OPENAI_BASE_URL that is not a URL is named in the error (stderr, a CI log) with its
// credentials masked. The mask found them only after a well-formed `scheme://` and before the first '/', '?' or
// '#': a typo in the scheme, or a password holding one of those unescaped, printed the password whole.

const PASSWORD = 'hunter2-secret-pass';

const BAD = [
  `htps//me:${PASSWORD}@host/v1`,
  `https//me:${PASSWORD}@host`,
  `https://me:hunter2/secret-pass@host/v1`,
  `https://me:hunter2?secret-pass@host/v1`,
  `https://me:hunter2#secret-pass@host/v1`,
  `https://me:${PASSWORD}@exa mple.com/v1`,
];

describe('a base URL that is not a URL never echoes its password', () => {
  for (const raw of BAD) {
    it(raw.replace(PASSWORD, 'PASSWORD'), () => {
      let error: unknown = null;
      try {
        parseBaseUrl(raw);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UserError);
      const message = (error as Error).message;
      expect(message).not.toContain('hunter2');
      expect(message).not.toContain('secret-pass');
      expect(message).toMatch(/\*\*\*@/);
    });
  }

  it('what is not a credential is kept: the host and path, a URL without an @, and an @ in a query', () => {
    expect(maskUrl(`htps//me:${PASSWORD}@host/v1`)).toBe('htps//***@host/v1');
    expect(maskUrl('https://me:hunter2/secret-pass@host/v1')).toBe('https://***@host/v1');
    expect(maskUrl('http://h/v1?x=a@b')).toBe('http://h/v1?x=a@b');
    expect(maskUrl('a:b@h:80/v1')).toBe('***@h:80/v1');
    expect(maskUrl('http://127.0.0.1:11434/v1')).toBe('http://127.0.0.1:11434/v1');
  });
});
