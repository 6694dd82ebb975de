import { ModelCallError } from './errors.js';

// A model server is read as it streams: the SDK joins an SSE line until its newline comes, and troupe's own limit
// (LIMITS.modelOutput) counts only the answer's text. A server that sent one line without end, or chunks without
// text forever, was read for as long as it went on (the no-data timer is re-armed by every chunk): a turn that
// never ended, and memory that grew with the line (350 MB in two minutes, unbounded in principle).

/** How much of one response troupe reads. */
export interface ResponseLimits {
  /** Most bytes of one response body (every chunk, text or not). */
  totalBytes: number;
  /** Most bytes of one line of it (an SSE event is one line). */
  lineBytes: number;
}

/** Far above any real answer: 200,000 characters streamed a few at a time is about 15 MB of chunks. */
export const DEFAULT_RESPONSE_LIMITS: ResponseLimits = { totalBytes: 128 * 1024 * 1024, lineBytes: 16 * 1024 * 1024 };

const MB = (n: number) => (n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MB` : `${Math.round(n / 1024)} KB`);

/**
 * `fetch` for the SDK that stops reading a response past `limits`: the body fails with a one-line ModelCallError
 * (not retried: the same server would send the same) and the connection is let go.
 */
export function boundedFetch(host: string, limits: ResponseLimits = DEFAULT_RESPONSE_LIMITS, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body) return response;
    let total = 0;
    let line = 0;
    const guard = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength;
        const newline = chunk.lastIndexOf(10);
        line = newline < 0 ? line + chunk.byteLength : chunk.byteLength - newline - 1;
        if (line > limits.lineBytes)
          controller.error(
            new ModelCallError(
              `the model server at ${host} sent a line of more than ${MB(limits.lineBytes)} without ending it, so troupe stopped reading (a broken or hostile server) — check OPENAI_BASE_URL`,
              false,
            ),
          );
        else if (total > limits.totalBytes)
          controller.error(
            new ModelCallError(
              `the model server at ${host} sent more than ${MB(limits.totalBytes)} for one answer, so troupe stopped reading (a broken or hostile server) — check OPENAI_BASE_URL`,
              false,
            ),
          );
        else controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(guard), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
