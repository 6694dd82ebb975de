import { AbortedError, ModelCallError } from './errors.js';
import { loadedOpenAI } from './openai-sdk.js';
import { redact } from './redact.js';

/** The wait a server asked for, from `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | undefined, now: () => number = Date.now): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers?.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - now()) : undefined;
}

/** Where a call went, for error messages: model id and server host (never a key). */
export interface CallTarget {
  model: string;
  host: string;
}

function firstLine(text: unknown): string {
  return redact(String(text ?? '').split('\n')[0] ?? '').slice(0, 300);
}

// Socket failures a retry may cure: the server or a proxy dropped the connection.
const DROPPED = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_ABORTED']);
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The first error code (ECONNRESET, UND_ERR_SOCKET, …) along an error's cause chain. */
export function networkCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (DROPPED.has(code) || UNREACHABLE.has(code))) return code;
  }
  return undefined;
}

/** Maps SDK and network failures to one-line, key-free errors that know whether a retry may help. */
export function toModelError(error: unknown, signal?: AbortSignal, target?: CallTarget): Error {
  if (error instanceof ModelCallError || error instanceof AbortedError) return error;
  const OpenAI = loadedOpenAI();
  if (signal?.aborted || (OpenAI && error instanceof OpenAI.APIUserAbortError)) return new AbortedError('call aborted');
  const host = target ? ` at ${target.host}` : '';
  if (OpenAI && error instanceof OpenAI.APIConnectionTimeoutError) return new ModelCallError(`the model server${host} timed out`, true);
  const code = networkCode(error);
  // undici ends a broken body with TypeError("terminated"); the socket error is in its cause.
  if (code && DROPPED.has(code)) return new ModelCallError(`the connection to the model server${host} was reset (${code})`, true);
  if (OpenAI && error instanceof OpenAI.APIConnectionError) return new ModelCallError(`cannot reach the model server${host} — check OPENAI_BASE_URL and that the server is running`, true);
  if (OpenAI && error instanceof OpenAI.APIError) {
    const status = error.status ?? 0;
    // The SDK prefixes the status ("500 boom"); the messages below say it once.
    const detail = firstLine(error.message).replace(/^\d{3}\s+/, '');
    const model = target ? ` "${target.model}"` : '';
    if (status === 401) return new ModelCallError(`401 unauthorised${host}: the API key was rejected — check OPENAI_API_KEY`, false, { status });
    if (status === 403) return new ModelCallError(`403 forbidden${host}: the key may not use model${model} — ${detail}`, false, { status });
    if (status === 404) return new ModelCallError(`404 unknown model${model}${host} — check TROUPE_MODEL / TROUPE_MODEL_<TIER> or the persona's model (${detail})`, false, { status });
    if (status === 429 && (error.code === 'insufficient_quota' || /insufficient_quota|quota/i.test(detail))) {
      return new ModelCallError(`429 quota exceeded${host}: check the account's plan and billing (${detail})`, false, { status });
    }
    const after = retryAfterMs(error.headers);
    const retryable = status === 429 || status === 408 || status === 409 || status >= 500 || status === 0;
    const label = status === 0 ? 'the model server reported an error mid-stream' : `model server error ${status}`;
    return new ModelCallError(`${label}: ${detail}`, retryable, { status, ...(after !== undefined ? { retryAfterMs: after } : {}) });
  }
  if (error instanceof SyntaxError) return new ModelCallError(`malformed stream from the model server${host} (${firstLine(error.message)})`, true);
  return new ModelCallError(firstLine(error instanceof Error ? error.message : String(error)), false, { cause: error });
}
