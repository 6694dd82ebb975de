import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { stdioCovering } from './inherited-fds.js';

/** How a process ended and what it printed (stdout and stderr interleaved as they came, capped). */
export interface ProcessResult {
  exitCode: number | null;
  signal: string | null;
  output: string;
  /** Bytes of output left out past the cap. */
  droppedBytes: number;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the process could not be started at all. */
  spawnError?: string;
}

/** Options for one process run. */
export interface ProcessOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** How long the output may still flow after the program exited, before the pipes are closed on whoever holds them (default 1 s). */
  exitGraceMs?: number;
  /** Descriptors this process would pass on (inheritableDescriptors): the program gets /dev/null at those numbers instead. */
  cover?: readonly number[];
}

/** The default wait for output after the program exited. */
export const EXIT_GRACE_MS = 1_000;

/** The environment a command sees: PATH, HOME set to the workspace, a UTF-8 locale, a dumb terminal; nothing else of the parent's (no API keys). */
export function cleanEnv(workspace: string, path: string): Record<string, string> {
  return { PATH: path, HOME: workspace, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TERM: 'dumb' };
}

/**
 * Runs a program directly (never through a shell) in its own process group, with stdin closed.
 * On timeout or abort the whole group is killed (SIGKILL to -pid), so children go too; when the
 * program ends, stragglers it left in its group are killed as well. A child that left the group
 * (setsid) and holds the pipes does not keep the call waiting: once the program has exited, its output
 * is awaited for `exitGraceMs` at most. (run_command runs programs in a jail whose PID namespace ends
 * with the program, which kills such children; this bound holds without one too.) The direct child is
 * reaped by Node; killed grandchildren are reparented to PID 1, which in some containers never reaps
 * them (they stay as zombies, holding nothing but a process-table entry).
 */
export function runProcess(program: string, args: readonly string[], options: ProcessOptions & { argv0?: string }): Promise<ProcessResult> {
  return new Promise<ProcessResult>((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let dropped = 0;
    let timedOut = false;
    let aborted = false;
    let exited: { code: number | null; signal: string | null } | null = null;
    let settled = false;
    let grace: NodeJS.Timeout | undefined;
    const cover = options.cover ?? [];
    const nullFd = cover.length > 0 ? openSync('/dev/null', 'r') : -1;
    const child = spawn(program, [...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: cover.length > 0 ? stdioCovering(cover, nullFd) : ['ignore', 'pipe', 'pipe'],
      detached: true,
      shell: false,
      windowsHide: true,
      ...(options.argv0 ? { argv0: options.argv0 } : {}),
    });
    // The child has its own copies (or failed to start): troupe's /dev/null is not needed any more.
    if (nullFd >= 0) closeSync(nullFd);
    const take = (data: Buffer) => {
      const room = Math.max(0, options.maxOutputBytes - kept);
      if (room > 0) {
        const part = data.subarray(0, room);
        chunks.push(part);
        kept += part.length;
      }
      dropped += data.length - Math.min(room, data.length);
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const settle = (extra: Partial<ProcessResult> = {}) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      options.signal?.removeEventListener('abort', onAbort);
      killGroup();
      // A grandchild that left the group may still hold the pipes; stop reading them.
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({ exitCode: exited?.code ?? null, signal: exited?.signal ?? null, output: Buffer.concat(chunks).toString('utf8'), droppedBytes: dropped, timedOut, aborted, ...extra });
    };
    // Stopped early: kill the group, then report once the direct child is gone (at once if it already is).
    const stop = () => {
      killGroup();
      if (exited) settle();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    child.once('error', (error) => settle({ spawnError: error.message }));
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      if (timedOut || aborted) settle();
      // Normally 'close' follows at once; a child holding the pipes must not hold the call until the timeout.
      // setImmediate: output already in the pipes is read (a poll phase) before the call settles.
      else grace = setTimeout(() => setImmediate(() => settle()), options.exitGraceMs ?? EXIT_GRACE_MS);
    });
    child.once('close', () => settle());
  });
}
