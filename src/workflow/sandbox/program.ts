import { z } from 'zod';
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
export const SandboxLimitsSchema = z.object({
  /** Wall time for one evaluation (the interrupt handler's deadline). */
  timeoutMs: z.number().int().positive(),
  /** Extra time before the worker is terminated, when a slow built-in does not see the interrupt. */
  graceMs: z.number().int().nonnegative(),
  memoryBytes: z.number().int().min(1024 * 1024),
  stackBytes: z.number().int().min(16 * 1024),
  maxLogLines: z.number().int().nonnegative(),
  /** Largest result (as JSON) that may come back. */
  maxResultBytes: z.number().int().positive(),
});
/** The limits one evaluation runs under. */
export type SandboxLimits = z.infer<typeof SandboxLimitsSchema>;

/** The defaults: 1000 ms, 32 MiB, 256 KiB of stack, 100 log lines, 8 MiB of result. */
export const DEFAULT_LIMITS: SandboxLimits = {
  timeoutMs: 1000,
  graceMs: 500,
  memoryBytes: 32 * 1024 * 1024,
  stackBytes: 256 * 1024,
  maxLogLines: 100,
  maxResultBytes: 8 * 1024 * 1024,
};
