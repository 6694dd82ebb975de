import { UserError } from './errors.js';

/** A base URL ready for the SDK: credentials moved out of it (fetch refuses them) into a Basic Authorization header. */
export interface BaseUrl {
  /** The URL without user name and password. */
  url: string;
  /** `Basic …` when the URL carried credentials. */
  authorization?: string;
}

/**
 * A URL as it may be shown: any user name and password replaced by `***`, even when the text is not a valid URL
 * (what it is shown for): a scheme with a typo (`htps//`), or a password holding '/', '?' or '#' unescaped. A
 * `user:password` shape before the last '@' is masked up to it; else the authority's user name, if any.
 */
export function maskUrl(raw: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(raw)?.[0] ?? /^[a-z][a-z0-9+.-]*:?\/+/i.exec(raw)?.[0] ?? '';
  const rest = raw.slice(scheme.length);
  const last = rest.lastIndexOf('@');
  if (last < 0) return raw;
  if (rest.slice(0, last).includes(':')) return `${scheme}***@${rest.slice(last + 1)}`;
  const slash = rest.search(/[/?#]/);
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const at = authority.lastIndexOf('@');
  if (at < 0) return raw;
  return `${scheme}***@${rest.slice(at + 1)}`;
}

/**
 * Checks a base URL (from `name`, e.g. OPENAI_BASE_URL) and moves credentials in it
 * (`http://user:pass@host/v1`) to an Authorization header. A bad URL is a one-line UserError
 * that never echoes a password.
 */
export function parseBaseUrl(raw: string, name = 'OPENAI_BASE_URL'): BaseUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UserError(`${name} "${maskUrl(raw)}" is not a URL — set it like http://127.0.0.1:11434/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UserError(`${name} "${maskUrl(raw)}" must start with http:// or https:// — set it like http://127.0.0.1:11434/v1`);
  }
  if (!url.username && !url.password) return { url: raw };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  return { url: url.toString(), authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}
