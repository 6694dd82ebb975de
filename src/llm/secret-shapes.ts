/** Looks like a generated credential rather than a word: a digit, or upper case, or great length. */
export function tokenLike(value: string): boolean {
  return /[0-9]/.test(value) || /[A-Z]/.test(value) || value.length >= 32;
}

/** Bits of entropy per character (Shannon), over the characters the value uses. */
export function entropyPerChar(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * True when a value, taken on its own, is shaped like a secret: 12+ characters without spaces, letters
 * and digits, not a path or URL, and varied enough (3+ bits per character). A common word or setting
 * ("awaiting_user", "true", "/run/agent.sock") is not, whatever the variable holding it is called.
 */
export function secretShaped(value: string): boolean {
  if (value.length < 12 || value.length > 4096 || /\s/.test(value)) return false;
  if (/^[/~.]/.test(value) || value.includes('://')) return false;
  if (!/[A-Za-z]/.test(value) || !/[0-9]/.test(value)) return false;
  return entropyPerChar(value) >= 3;
}

/** One shape of credential: where it is, and what it becomes (the prefix kept, so a reader sees what kind of key it was). */
export interface SecretShape {
  name: string;
  pattern: RegExp;
  replace: (match: string, ...groups: string[]) => string;
}

const R = '[redacted]';

/** True when `text` is base64 of `user:password` (what an HTTP Basic authorization carries), not a word after "basic". */
export function basicCredentials(text: string): boolean {
  const decoded = Buffer.from(text, 'base64').toString('latin1');
  return Buffer.from(decoded, 'latin1').toString('base64').replace(/=+$/, '') === text.replace(/=+$/, '') && /^[\x20-\x7e]+$/.test(decoded) && decoded.includes(':');
}
const keep = (prefix: string) => (match: string, body: string) => (tokenLike(body) ? `${prefix}${R}` : match);

/** The credential shapes redacted wherever they appear (a server error or a model may echo them). */
export const SECRET_SHAPES: readonly SecretShape[] = [
  { name: 'Anthropic key', pattern: /\bsk-ant-((?:api\d\d-)?[A-Za-z0-9_-]{16,})/g, replace: keep('sk-ant-') },
  { name: 'OpenAI project key', pattern: /\bsk-proj-([A-Za-z0-9_-]{16,})/g, replace: keep('sk-proj-') },
  { name: 'OpenAI-style key', pattern: /\b(?:sk|rk|xai)-(?!ant-|proj-)([A-Za-z0-9_-]{16,})/g, replace: (m, body) => (tokenLike(body) ? `${m.slice(0, m.indexOf('-') + 1)}${R}` : m) },
  { name: 'Stripe or Groq key', pattern: /\b((?:sk|rk)_(?:live|test)_|gsk_)([A-Za-z0-9]{16,})/g, replace: (m, prefix, body) => (tokenLike(body) ? `${prefix}${R}` : m) },
  { name: 'AWS access key id', pattern: /\b(AKIA|ASIA)[A-Z0-9]{16}\b/g, replace: (_m, prefix) => `${prefix}${R}` },
  { name: 'AWS secret access key', pattern: /(aws_secret_access_key["']?\s*[=:]\s*["']?)[A-Za-z0-9/+=]{40}/gi, replace: (_m, prefix) => `${prefix}${R}` },
  { name: 'GitHub token', pattern: /\b(gh[pousr]_)([A-Za-z0-9]{30,})/g, replace: (_m, prefix) => `${prefix}${R}` },
  { name: 'GitHub fine-grained token', pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/g, replace: () => `github_pat_${R}` },
  { name: 'Slack token', pattern: /\b(xox[abprs]-)([A-Za-z0-9-]{10,})/g, replace: (m, prefix, body) => (tokenLike(body) ? `${prefix}${R}` : m) },
  { name: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g, replace: () => `AIza${R}` },
  { name: 'Basic authorization', pattern: /(\bbasic\s+)([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/gi, replace: (m, prefix, body) => (basicCredentials(body) ? `${prefix}${R}` : m) },
  { name: 'Bearer token', pattern: /(\bbearer\s+)([A-Za-z0-9._~+/=-]{8,})/gi, replace: (m, prefix, body) => (tokenLike(body) ? `${prefix}${R}` : m) },
  { name: 'password setting', pattern: /\b((?:password|passwd|pwd)["']?\s*[=:]\s*["']?)([^\s"'&;,]{3,})/gi, replace: (_m, prefix) => `${prefix}${R}` },
];

/**
 * Every shape's telltale prefix in one pattern: a string without any is left alone in a single scan. Grouped
 * by first letter (sk-, rk-, xai-, xox, _live_, _test_, gsk_, gh?_, github_pat_, AKIA, ASIA, aws_secret,
 * AIza, basic, bearer, passw, pwd), so a position whose letter starts none of them is passed at once.
 */
export const SECRET_HINT = /s(?:k-)|r(?:k-)|x(?:ai-|ox)|_(?:live_|test_)|g(?:sk_|h[pousr]_|ithub_pat_)|a(?:kia|sia|ws_secret|iza)|b(?:asic|earer)|p(?:assw|wd)/i;
