import { parseShown } from './shown-text.js';

/** An answer of the API that is not a success: its status and its one-line error. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const KEY = 'troupe-token';
let token = sessionStorage.getItem(KEY) ?? '';

/** The bearer token this tab sends (asked for only when the server answers 401). */
export function currentToken(): string {
  return token;
}

/** Keeps the token for this tab (sessionStorage: it goes when the tab closes). */
export function setToken(value: string): void {
  token = value.trim();
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
}

/** Calls the API: JSON in and out; a failure throws an ApiError with the server's line (status 0: the server cannot be reached). */
export async function api<T>(path: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(`/v1${path}`, { method: init.method ?? (init.json !== undefined ? 'POST' : 'GET'), headers, ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}) });
  } catch {
    throw new ApiError(0, 'the server cannot be reached');
  }
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? parseShown(text) : null;
  } catch {
    body = null;
  }
  if (!response.ok) throw new ApiError(response.status, (body as { error?: string } | null)?.error ?? `${response.status} ${response.statusText}`);
  return body as T;
}

/** The URL of a session's event stream (EventSource cannot send headers: the token goes in the URL, accepted on this route only). */
export function streamUrl(id: string): string {
  return `/v1/sessions/${encodeURIComponent(id)}/events${token ? `?access_token=${encodeURIComponent(token)}` : ''}`;
}
