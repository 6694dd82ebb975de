import { terminalSafe } from '../report/terminal-safe.js';

/** What the CLI reads and writes: injected so `main()` runs in-process in tests and in a real process alike. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  stdin: NodeJS.ReadableStream;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Both ends are a terminal: the UI opens. */
  interactive: boolean;
  /** Sizes the process's heap for memory rather than speed (set by the real process, not in-process tests); `troupe run` calls it once its first answer is in. */
  favourMemory?: () => void;
  /** The command the user types to run troupe (invocationOf), worked out when a hint names it; unset (in-process callers): `troupe`. */
  invocation?: () => string;
}

/** The command a hint tells the user to type for troupe: `troupe`, or how they started it before `npm link` (`npm start --`, `node dist/cli.js`). */
export function troupeCommand(io: CliIo): string {
  return io.invocation?.() ?? 'troupe';
}

/** Writes one line to stdout, made safe for a terminal (model, user and file text may hold escape sequences). */
export function printer(io: CliIo): (line: string) => void {
  return (line) => void io.stdout.write(`${terminalSafe(line)}\n`);
}

/** Writes one line to stderr, made safe for a terminal. */
export function complainer(io: CliIo): (line: string) => void {
  return (line) => void io.stderr.write(`${terminalSafe(line)}\n`);
}
