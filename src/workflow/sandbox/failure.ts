import type { GuestFailure, SandboxLimits } from './program.js';

// Names workflow code written for Node reaches for; the error then says why they are missing.
const NODE_NAMES = new Set(['require', 'process', 'module', 'exports', 'Buffer', 'fs', '__dirname', '__filename', 'setTimeout', 'setInterval', 'fetch', 'global']);
const MAX_LINE = 400;

/** "32 MiB", "256 KiB", "1.5 MiB". */
export function sizeText(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (mib >= 1) return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
  return `${Math.round(bytes / 1024)} KiB`;
}

/** What code that used up its steps is told. */
export function stepsMessage(limits: Pick<SandboxLimits, 'maxSteps'>): string {
  return `ran more than ${limits.maxSteps.toLocaleString('en-US')} steps — an endless loop?`;
}

/** What an evaluation the backstop stopped is told: the step limit could not see it, and why that can be. */
export function backstopMessage(limits: Pick<SandboxLimits, 'backstopMs'>, what: string): string {
  const time = limits.backstopMs >= 1000 ? `${Math.round(limits.backstopMs / 100) / 10} s` : `${limits.backstopMs} ms`;
  return `${what}: still running after ${time} of wall-clock time, so the sandbox was stopped — a slow built-in (a huge string search, sort or join) that the step limit cannot interrupt, or a machine far too busy`;
}

/** One line that says what failed and, where it can, how to fix it. */
export function failureMessage(failure: GuestFailure, limits: Pick<SandboxLimits, 'maxSteps' | 'memoryBytes' | 'stackBytes'>): string {
  const where = failure.snippet && failure.snippet !== failure.label ? `${failure.label} \`${failure.snippet}\`` : failure.label;
  return oneLine(`${where}: ${describe(failure, limits)}`);
}

function describe(failure: GuestFailure, limits: Pick<SandboxLimits, 'maxSteps' | 'memoryBytes' | 'stackBytes'>): string {
  const { name, message } = failure;
  if (failure.kind === 'problem') return message;
  if (failure.kind === 'syntax') return `syntax error: ${message}`;
  if (isInternal(name, message, 'interrupted')) return stepsMessage(limits);
  if (isInternal(name, message, 'out of memory') || /string too long|invalid array length/i.test(message)) {
    return `ran out of memory (${sizeText(limits.memoryBytes)}) — a runaway loop or a huge string or array?`;
  }
  if (isInternal(name, message, 'stack overflow') || /call stack size/i.test(message)) {
    return `stack overflow (more than ${sizeText(limits.stackBytes)} of stack) — endless recursion?`;
  }
  const missing = /^'([\w$]+)' is not defined$/.exec(message);
  if (name === 'ReferenceError' && missing && NODE_NAMES.has(missing[1]!)) {
    return `ReferenceError: ${message} — workflow code runs in a sandbox without Node (no require, process, files, timers or network)`;
  }
  if (name === 'thrown value') return `threw ${message}`;
  return `${name}: ${message}`;
}

function isInternal(name: string | undefined, message: string, text: string): boolean {
  return (name === 'InternalError' || name === 'RangeError') && message === text;
}

/** Collapses a message to one line of bounded length. */
export function oneLine(text: string): string {
  const line = text.replace(/\s*\n\s*/g, ' ').trim();
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 3)}...` : line;
}
