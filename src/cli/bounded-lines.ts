import { LIMITS } from '../llm/limits.js';

/** A line read from a stream, or the length of one that was too long to keep (it was skipped, never buffered whole). */
export type BoundedLine = { line: string } | { tooLong: number };

/**
 * Splits a stream into lines like readline, but never holds more than `limit` characters of one line:
 * a longer line is reported by its length and dropped, so a 10 MB paste cannot stall the process.
 */
export async function* boundedLines(input: AsyncIterable<string | Buffer>, limit: number = LIMITS.inputLine): AsyncGenerator<BoundedLine> {
  let current = '';
  let overflow = 0;
  const finish = (): BoundedLine => {
    const done: BoundedLine = overflow > 0 ? { tooLong: overflow } : { line: current.endsWith('\r') ? current.slice(0, -1) : current };
    current = '';
    overflow = 0;
    return done;
  };
  for await (const chunk of input) {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    let start = 0;
    for (let nl = text.indexOf('\n', start); ; nl = text.indexOf('\n', start)) {
      const piece = text.slice(start, nl < 0 ? text.length : nl);
      if (overflow > 0) overflow += piece.length;
      else if (current.length + piece.length > limit) {
        overflow = current.length + piece.length;
        current = '';
      } else current += piece;
      if (nl < 0) break;
      yield finish();
      start = nl + 1;
    }
  }
  if (current !== '' || overflow > 0) yield finish();
}
