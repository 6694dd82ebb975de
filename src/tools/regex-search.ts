import { Worker } from 'node:worker_threads';
import { ToolError } from './tool.js';

/** A matching line: file, 1-based line number, the line's text (cut to 300 characters). */
export type LineMatch = [path: string, line: number, text: string];

/** Matching lines, and whether more matched than were kept. */
export interface LineMatches {
  matches: LineMatch[];
  more: boolean;
}

// Plain JavaScript run in a worker thread (eval), so a pattern that backtracks without end can be
// stopped from outside: the main thread terminates the worker when the time is up.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { source, flags, files, max } = workerData;
const re = new RegExp(source, flags);
const matches = [];
let more = false;
outer: for (const f of files) {
  const lines = f.text.split('\\n');
  for (let i = 0; i < lines.length; i++) {
    if (!re.test(lines[i])) continue;
    if (matches.length >= max) { more = true; break outer; }
    matches.push([f.path, i + 1, lines[i].slice(0, 300)]);
  }
}
parentPort.postMessage({ matches, more });
`;

/** Checks a regular expression compiles; a bad one is a ToolError naming the problem. */
export function compileRegex(source: string, ignoreCase: boolean): RegExp {
  try {
    return new RegExp(source, ignoreCase ? 'i' : '');
  } catch (error) {
    throw new ToolError(`invalid regular expression: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Lines matching a regular expression, searched in a worker thread stopped after `timeoutMs` (counted from when it is up). */
export function regexSearch(files: { path: string; text: string }[], regex: RegExp, max: number, timeoutMs: number, signal?: AbortSignal): Promise<LineMatches> {
  return new Promise<LineMatches>((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { source: regex.source, flags: regex.flags, files, max } });
    let timer: NodeJS.Timeout | undefined;
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      settle();
    };
    const onAbort = () => finish(() => reject(new ToolError('the search was aborted')));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('online', () => {
      timer = setTimeout(
        () => finish(() => reject(new ToolError(`the regular expression ran longer than ${timeoutMs} ms and was stopped (it may backtrack without end); simplify it, or search for literal text`))),
        timeoutMs,
      );
    });
    worker.once('message', (result: LineMatches) => finish(() => resolve(result)));
    worker.once('error', (error) => finish(() => reject(new ToolError(`the search failed: ${error.message}`))));
  });
}
