import type { TemplatePart } from './template.js';

/** One piece of workflow code, ready for the guest: a function body, a parsed template, or a handler's name. */
export type Piece =
  | { kind: 'body'; label: string; snippet: string; body: string; fallback?: string }
  | { kind: 'template'; label: string; snippet: string; parts: TemplatePart[] }
  | { kind: 'handler'; label: string; snippet: string; name: string };

/** What the guest runs for one evaluation (sent into QuickJS as JSON). */
export interface Program {
  mode: 'code' | 'transitions' | 'fields';
  code?: Piece;
  transitions?: { condition: Piece | null; before: Piece | null }[];
  fields?: [string, Piece][];
  /** script.js as a function body and its top-level names, when a piece is a handler. */
  script?: { workflow: string; source: string; names: string[] };
  maxLogLines: number;
  maxLogChars: number;
}

/** Why the guest failed: a syntax error, a thrown error, or a problem it described itself. */
export interface GuestFailure {
  kind: 'syntax' | 'thrown' | 'problem';
  label: string;
  snippet?: string;
  name?: string;
  message: string;
}

/** The limits one evaluation runs under. */
export interface SandboxLimits {
  /** Wall time for one evaluation (the interrupt handler's deadline). */
  timeoutMs: number;
  /** Extra time before the worker is terminated, when a slow built-in does not see the interrupt. */
  graceMs: number;
  memoryBytes: number;
  stackBytes: number;
  maxLogLines: number;
  /** Largest result (as JSON) that may come back. */
  maxResultBytes: number;
}

/** The defaults: 1000 ms, 32 MiB, 256 KiB of stack, 100 log lines, 8 MiB of result. */
export const DEFAULT_LIMITS: SandboxLimits = {
  timeoutMs: 1000,
  graceMs: 500,
  memoryBytes: 32 * 1024 * 1024,
  stackBytes: 256 * 1024,
  maxLogLines: 100,
  maxResultBytes: 8 * 1024 * 1024,
};
