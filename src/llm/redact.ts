import { SECRET_HINT, SECRET_SHAPES, secretShaped } from './secret-shapes.js';

/**
 * Replaces secrets in one string (a value, never serialised JSON: redaction must not break the structure
 * around it); `screen`, when present, matches any text (serialised JSON too) holding something it would change.
 */
export type Redactor = ((text: string) => string) & { readonly screen?: RegExp };

const SECRET_NAME = /(API_?KEY|_KEY$|TOKEN|SECRET|PASSWORD|PASSWD|AUTH(?!OR))/i;

/**
 * The credentials a URL value carries (`https://user:password@host`): the Basic authorization made of them,
 * and its password (as written and decoded) when troupe sends it (`modelServer`: OPENAI_BASE_URL, whose
 * server may echo it) or it looks like a secret (`postgres://postgres:postgres@…` leaves the word alone).
 */
function urlCredentials(value: string, modelServer: boolean): string[] {
  if (!value.includes('://') || !value.includes('@')) return [];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [];
  }
  if (!url.password) return [];
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const password = decode(url.password);
  // A password too short to be told from ordinary text is left to the Basic shape (its encoded pair is always long).
  const found = [Buffer.from(`${decode(url.username)}:${password}`).toString('base64')];
  if (modelServer ? password.length >= MIN_URL_PASSWORD : secretShaped(password)) found.push(password, url.password);
  return found;
}

/** The shortest OPENAI_API_KEY redacted whatever its shape (a chosen passphrase has no digit); shorter ones are placeholders ("ollama"). */
const MIN_API_KEY = 16;

/** OPENAI_API_KEY is always a key once it is long enough and one word (a shorter one must still look like a secret). */
function apiKeyShaped(value: string): boolean {
  return (value.length >= MIN_API_KEY && !/\s/.test(value)) || secretShaped(value);
}

/** The shortest password of OPENAI_BASE_URL that is redacted as it is, wherever it appears. */
const MIN_URL_PASSWORD = 6;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The one redactor: credential shapes wherever they appear (OpenAI, Anthropic, AWS, GitHub, Slack, Google,
 * Stripe keys, Bearer and Basic authorizations, `password=`), plus OPENAI_API_KEY (any of 16+ characters) and the values of variables named like
 * secrets (…KEY, …TOKEN, …SECRET, …PASSWORD, …AUTH…), but only values that are themselves secret-shaped:
 * `APP_SECRET=awaiting_user` never turns the word "awaiting_user" into "[redacted]"; and the password of
 * OPENAI_BASE_URL (`https://user:password@host`, sent as a Basic authorization), or of any variable's URL
 * when it looks like a secret.
 */
export function redactorFrom(env: Record<string, string | undefined> = process.env): Redactor {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    const v = value?.trim();
    if (!v) continue;
    // Any variable's URL (OPENAI_BASE_URL, a proxy, a database) may carry a password: it goes out in a header a server may echo.
    const found = urlCredentials(v, name === 'OPENAI_BASE_URL');
    if (name === 'OPENAI_API_KEY' ? apiKeyShaped(v) : SECRET_NAME.test(name) && secretShaped(v)) found.push(v);
    for (const secret of found) {
      values.add(secret);
      // The JSON-escaped form too, for text that holds serialised JSON (a tool call's arguments).
      values.add(JSON.stringify(secret).slice(1, -1));
    }
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
  fromProcess ??= redactorFrom(process.env);
  return fromProcess;
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

type Node = Record<string, unknown> | unknown[];

/**
 * Plain data with every string value redacted, sharing every part that nothing in changes (the value itself
 * when nothing does): one walk with an explicit stack, the redactor run only on strings its screen matches.
 * As `JSON.stringify` reads values, a `toJSON()` result is what is walked.
 */
function redactChanged(value: unknown, redactor: Redactor): unknown {
  const screen = redactor.screen;
  const fix = (text: string) => (screen && !screen.test(text) ? text : redactor(text));
  const plain = (v: unknown) => (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function' ? (v as { toJSON: () => unknown }).toJSON() : v);
  const root = plain(value);
  if (typeof root === 'string') return fix(root);
  if (root === null || typeof root !== 'object') return value;
  // Each frame walks one object's entries; a changed child makes the frame copy its object (once).
  type Frame = { from: Node; keys: string[]; at: number; copy: Node | null; parent: Frame | null; key: string };
  let top: Frame | null = { from: root as Node, keys: Object.keys(root), at: 0, copy: null, parent: null, key: '' };
  let result: unknown = root;
  const set = (f: Frame, key: string, v: unknown) => {
    f.copy ??= (Array.isArray(f.from) ? [...f.from] : { ...f.from }) as Node;
    (f.copy as Record<string, unknown>)[key] = v;
  };
  while (top) {
    const f: Frame = top;
    if (f.at < f.keys.length) {
      const key = f.keys[f.at++]!;
      const v = plain((f.from as Record<string, unknown>)[key]);
      if (typeof v === 'string') {
        const fixed = fix(v);
        if (fixed !== v) set(f, key, fixed);
      } else if (v !== null && typeof v === 'object') top = { from: v as Node, keys: Object.keys(v), at: 0, copy: null, parent: f, key };
      else if (v !== (f.from as Record<string, unknown>)[key]) set(f, key, v);
      continue;
    }
    top = f.parent;
    if (!top) result = f.copy ?? f.from;
    else if (f.copy) set(top, f.key, f.copy);
    else if (plain((top.from as Record<string, unknown>)[f.key]) !== (top.from as Record<string, unknown>)[f.key]) set(top, f.key, f.from);
  }
  return result === root && root !== value ? root : result;
}

/**
 * JSON text of plain data with every string value redacted, as `JSON.stringify(redactDeep(value))`. Serialised
 * once, natively; the whole text is searched once with the redactor's screen (one pass, no backtracking: a
 * literal alternation), which in the usual case finds nothing and ends the work. When it finds something, only
 * the strings holding it are redacted (the rest of the data is shared, not copied) and, if any changed, the
 * data is serialised again; a word that only looks like a secret's prefix costs one walk and no second text.
 */
export function redactedJson(value: unknown, redactor: Redactor = redact, indent?: number): string {
  const text = JSON.stringify(value, null, indent);
  if (text === undefined || (redactor.screen && !redactor.screen.test(text))) return text;
  const redacted = redactChanged(value, redactor);
  return redacted === value ? text : JSON.stringify(redacted, null, indent);
}
