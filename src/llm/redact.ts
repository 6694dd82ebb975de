/** Replaces secrets in serialised text before it reaches disk; `screen` matches any text it might change (absent: any text). */
export type Redactor = ((text: string) => string) & { readonly screen?: RegExp };

const SECRET_NAME = /(API_?KEY|_KEY$|TOKEN|SECRET|PASSWORD|PASSWD|AUTH(?!OR))/i;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Builds a redactor from the environment: values of OPENAI_API_KEY and of any variable named like a
 * secret (…KEY, …TOKEN, …SECRET, …PASSWORD, …AUTH…; 8+ characters), plus bearer tokens and
 * sk-style keys wherever they appear (a server error may echo the key back).
 */
export function redactorFrom(env: Record<string, string | undefined> = process.env): Redactor {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    const v = value?.trim();
    if (!v || v.length < 8) continue;
    if (name === 'OPENAI_API_KEY' || SECRET_NAME.test(name)) {
      values.add(v);
      // The JSON-escaped form too, in case the value holds quotes or backslashes.
      values.add(JSON.stringify(v).slice(1, -1));
    }
  }
  const patterns = [...values].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const exact = patterns.length ? new RegExp(patterns.join('|'), 'g') : null;
  const bearer = /(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;
  const skKey = /\b(sk|rk|gsk|xai|pk)-[A-Za-z0-9_-]{16,}/g;
  // Looser than the patterns (no word boundary, any case), so it also matches their JSON-escaped forms.
  const screen = new RegExp([...patterns, 'bearer', '(?:sk|rk|gsk|xai|pk)-'].join('|'), 'i');
  const redactor = (text: string) => {
    let out = exact ? text.replace(exact, '[redacted]') : text;
    out = out.replace(bearer, '$1[redacted]').replace(skKey, '$1-[redacted]');
    return out;
  };
  return Object.assign(redactor, { screen });
}

let fromProcess: Redactor | null = null;

/** The redactor for this process's environment (built once). */
export function redact(text: string): string {
  fromProcess ??= redactorFrom(process.env);
  return fromProcess(text);
}

/** Applies a redactor to every string inside plain data (before it is serialised, so the JSON stays valid). */
export function redactDeep<T>(value: T, redactor: Redactor = redact): T {
  if (typeof value === 'string') return redactor(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redactor)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, redactor)])) as T;
  }
  return value;
}

/**
 * JSON text of plain data with every string redacted: serialised once, and only text the redactor's
 * screen matches (rare) is serialised again with each string redacted, so the JSON stays valid.
 */
export function redactedJson(value: unknown, redactor: Redactor = redact, indent?: number): string {
  const text = JSON.stringify(value, null, indent);
  if (redactor.screen && !redactor.screen.test(text)) return text;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? redactor(v) : v), indent);
}
