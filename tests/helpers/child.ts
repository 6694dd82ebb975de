import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A child process whose output is kept line by line, with a way to wait for a line. */
export class Child {
  readonly lines: string[] = [];
  private readonly waiters: { match: RegExp; resolve: (line: string) => void }[] = [];
  private exited = false;

  private constructor(
    readonly name: string,
    readonly process: ChildProcess,
  ) {
    for (const stream of [process.stdout, process.stderr]) {
      let buffer = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n')) >= 0) {
          this.line(buffer.slice(0, end));
          buffer = buffer.slice(end + 1);
        }
      });
    }
    process.once('exit', () => (this.exited = true));
  }

  /** Starts a command; its stdout and stderr are collected as lines. */
  static start(name: string, command: string, args: string[], options: SpawnOptions = {}): Child {
    return new Child(name, spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options }));
  }

  get pid(): number {
    return this.process.pid!;
  }

  private line(text: string): void {
    this.lines.push(text);
    for (const w of [...this.waiters]) {
      if (w.match.test(text)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(text);
      }
    }
  }

  /** The first line (already printed or still to come) matching `match`; rejects if the process exits first. */
  waitFor(match: RegExp): Promise<string> {
    const seen = this.lines.find((l) => match.test(l));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      if (this.exited) return reject(new Error(`${this.name} exited before printing ${match}:\n${this.lines.slice(-20).join('\n')}`));
      this.waiters.push({ match, resolve });
      this.process.once('exit', () => reject(new Error(`${this.name} exited before printing ${match}:\n${this.lines.slice(-20).join('\n')}`)));
    });
  }

  /** Sends a signal and waits until the process is gone (not a zombie kept by a PID 1 that does not reap). */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (this.exited || !alive(this.pid)) return;
    const gone = new Promise<void>((resolve) => this.process.once('exit', () => resolve()));
    this.process.kill(signal);
    await gone;
  }
}

/** Whether a process runs (a zombie does not): `kill(pid, 0)` succeeds for zombies, so /proc is read. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls until `check` holds (each poll awaits the previous); rejects with `what` after `tries` polls. */
export async function until(what: string, check: () => Promise<boolean> | boolean, options: { tries?: number; everyMs?: number } = {}): Promise<void> {
  const tries = options.tries ?? 300;
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 100));
  }
  throw new Error(`gave up waiting: ${what}`);
}
