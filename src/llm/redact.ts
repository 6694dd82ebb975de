import { SECRET_HINT, SECRET_SHAPES, secretShaped } from './secret-shapes.js';

/**
 * Replaces secrets in one string (a value, never serialised JSON: redaction must not break the structure
 * around it); `screen`, when present, matches any text (serialised JSON too) holding something it would change.
 */
export type Redactor = ((text: string) => string) & { readonly screen?: RegExp };

const SECRET_NAME = /(API_?KEY|_KEY$|TOKEN|SECRET|PASSWORD|PASSWD|AUTH(?!OR))/i;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The one redactor: credential shapes wherever they appear (OpenAI, Anthropic, AWS, GitHub, Slack, Google,
 * Stripe keys, Bearer tokens, `password=`), plus the values of OPENAI_API_KEY and of variables named like
 * secrets (…KEY, …TOKEN, …SECRET, …PASSWORD, …AUTH…), but only values that are themselves secret-shaped:
 * `APP_SECRET=awaiting_user` never turns the word "awaiting_user" into "[redacted]".
 */
export function redactorFrom(env: Record<string, string | undefined> = process.env): Redactor {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    const v = value?.trim();
    if (!v || !(name === 'OPENAI_API_KEY' || SECRET_NAME.test(name)) || !secretShaped(v)) continue;
    values.add(v);
    // The JSON-escaped form too, for text that holds serialised JSON (a tool call's arguments).
    values.add(JSON.stringify(v).slice(1, -1));
  }
  const patterns = [...values].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const exact = patterns.length > 0 ? new RegExp(patterns.join('|'), 'g') : null;
  const redactor = (text: string) => {
    let out = exact ? text.replace(exact, '[redacted]') : text;
    if (!SECRET_HINT.test(out)) return out;
    for (const shape of SECRET_SHAPES) out = out.replace(shape.pattern, shape.replace as (m: string, ...g: string[]) => string);
    return out;
  };
  // The values (in both forms) and every shape's telltale prefix: what a string would need to be changed,
  // found in its JSON form as well (escaping leaves them as they are).
  const screen = new RegExp([...patterns, SECRET_HINT.source].join('|'), 'i');
  return Object.assign(redactor, { screen });
}

let fromProcess: Redactor | null = null;

/** The redactor for this process's environment (built once), with its screen. */
export function processRedactor(): Redactor {
  return (fromProcess ??= redactorFrom(process.env));
}

/** Redacts one string with the redactor for this process's environment. */
export function redact(text: string): string {
  return processRedactor()(text);
}

/**
 * A copy of plain data with every string value redacted (keys and structure kept), walked with an explicit
 * stack so deep data cannot overflow the call stack. Used for session files, recordings, exports and `--json`.
 */
export function redactDeep<T>(value: T, redactor: Redactor = redact): T {
  if (typeof value === 'string') return redactor(value) as T;
  if (value === null || typeof value !== 'object') return value;
  const copy = (v: object): Record<string, unknown> => (Array.isArray(v) ? [] : {}) as Record<string, unknown>;
  const root = copy(value);
  const stack: [Record<string, unknown>, Record<string, unknown>][] = [[value as Record<string, unknown>, root]];
  while (stack.length > 0) {
    const [from, to] = stack.pop()!;
    for (const key of Object.keys(from)) {
      const v = from[key];
      if (typeof v === 'string') to[key] = redactor(v);
      else if (v !== null && typeof v === 'object') {
        const child = copy(v);
        to[key] = child;
        stack.push([v as Record<string, unknown>, child]);
      } else to[key] = v;
    }
  }
  return root as T;
}

/**
 * JSON text of plain data with every string value redacted, as `JSON.stringify(redactDeep(value))`: serialised
 * once, and only text the redactor's screen matches (rare) is serialised again with each string redacted.
 */
export function redactedJson(value: unknown, redactor: Redactor = redact, indent?: number): string {
  const text = JSON.stringify(value, null, indent);
  if (redactor.screen && !redactor.screen.test(text)) return text;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? redactor(v) : v), indent);
}
