import { z } from 'zod';
import type { TemplatePart } from './template.js';

/** One piece of workflow code, ready for the guest: a function body, a parsed template, or a handler's name. */
export type CodePiece =
  | { kind: 'body'; label: string; snippet: string; body: string; fallback?: string }
  | { kind: 'template'; label: string; snippet: string; parts: TemplatePart[] }
  | { kind: 'handler'; label: string; snippet: string; name: string };

/** What the guest runs for one evaluation (sent into QuickJS as JSON). */
export interface Program {
  mode: 'code' | 'transitions' | 'fields';
  code?: CodePiece;
  transitions?: { condition: CodePiece | null; before: CodePiece | null; target: string | null }[];
  fields?: [string, CodePiece][];
  /**
   * script.js (its source travels beside the program, compiled once per context) and its top-level names, when a
   * piece is a handler; once: its top level runs once per context (it holds no state, see runsOnce), else afresh each time;
   * onThis: the functions code can name on `this` (see functionsOnThis; absent: all of them).
   */
  script?: { workflow: string; hash: string; names: string[]; once: boolean; onThis?: string[] };
  /** A part after the first: it starts from the common_data the part before left. */
  chained?: boolean;
  /** The part runs in the state the part before chose, entered afresh (its input not yet set). */
  freshInput?: boolean;
  /** The value names the next state (a transition handler): the answer's header says which. */
  decides?: boolean;
  /**
   * The scope fields behind `this`'s built-on-use names (contexts, agents, last_response) the job's code can
   * name: only theirs are defined on `this`. Absent: all (code that reaches `this` reflectively).
   */
  reach?: LazyField[];
  maxLogLines: number;
  maxLogChars: number;
}

/** The scope fields whose names `this` builds on first use. */
export const LAZY_FIELDS = ['contexts', 'agents', 'last_response'] as const;
/** One of LAZY_FIELDS. */
export type LazyField = (typeof LAZY_FIELDS)[number];

/** Why the guest failed: a syntax error, a thrown error, or a problem it described itself. */
export interface GuestFailure {
  kind: 'syntax' | 'thrown' | 'problem';
  label: string;
  snippet?: string;
  name?: string;
  message: string;
}

/** QuickJS calls the interrupt handler once every this many interpreter ticks (backward jumps, calls, regex steps). */
export const STEPS_PER_INTERRUPT = 10_000;

/** The limits one evaluation runs under. */
export const SandboxLimitsSchema = z.object({
  /**
   * Interpreter steps one piece of code may take (counted by QuickJS's interrupt handler, a multiple of
   * STEPS_PER_INTERRUPT): the guest's own run time, the same on a busy machine as on an idle one.
   */
  maxSteps: z.number().int().min(STEPS_PER_INTERRUPT),
  /**
   * Wall-clock time after which the worker thread is terminated: only for what the step count cannot see
   * (a slow built-in such as a huge string search or sort). Far above what any evaluation needs, even on a
   * loaded machine.
   */
  backstopMs: z.number().int().positive(),
  memoryBytes: z
    .number()
    .int()
    .min(1024 * 1024),
  stackBytes: z
    .number()
    .int()
    .min(16 * 1024),
  maxLogLines: z.number().int().nonnegative(),
  /** Largest result (as JSON) that may come back. */
  maxResultBytes: z.number().int().positive(),
});
/** The limits one evaluation runs under. */
export type SandboxLimits = z.infer<typeof SandboxLimitsSchema>;

/** The defaults: 50,000,000 steps (about a second of CPU here), a 30 s backstop, 32 MiB, 256 KiB of stack, 100 log lines, 8 MiB of result. */
export const DEFAULT_LIMITS: SandboxLimits = {
  maxSteps: 50_000_000,
  backstopMs: 30_000,
  memoryBytes: 32 * 1024 * 1024,
  stackBytes: 256 * 1024,
  maxLogLines: 100,
  maxResultBytes: 8 * 1024 * 1024,
};
