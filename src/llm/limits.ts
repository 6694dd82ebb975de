import { ModelCallError, UserError } from './errors.js';

/**
 * Size limits, in characters, on what enters a session and what a model may send back. They keep
 * every step bounded (tokenizing, prompt building, saving) and sit far above real use: a brief or
 * a typed line of 32,000 characters is about 8,000 tokens, two thirds of the default prompt budget.
 */
export const LIMITS = {
  /** The brief that starts a session. */
  brief: 32_000,
  /** One line typed or piped in after the brief (a reply, an interjection, a command). */
  inputLine: 32_000,
  /** One model answer: its text and tool-call arguments together. */
  modelOutput: 200_000,
} as const;

/** A limited kind of input. */
export type InputKind = 'brief' | 'inputLine';

const n = (value: number) => value.toLocaleString('en-US');

const WHAT: Record<InputKind, { name: string; fix: string }> = {
  brief: { name: 'the brief', fix: "shorten it to the essentials; long reference material belongs in a persona's prompt file" },
  inputLine: { name: 'that line', fix: 'send it in shorter pieces, or put long material in a file a persona prompt references' },
};

/** Why an input is over its limit, in one line (null when it is within it). */
export function sizeProblem(kind: InputKind, text: string): string | null {
  const limit = LIMITS[kind];
  if (text.length <= limit) return null;
  const { name, fix } = WHAT[kind];
  return `${name} is ${n(text.length)} characters; the limit is ${n(limit)} — ${fix}`;
}

/** Throws a one-line UserError when an input is over its limit. */
export function assertWithinLimit(kind: InputKind, text: string): void {
  const problem = sizeProblem(kind, text);
  if (problem) throw new UserError(problem);
}

/** A model answer that passed LIMITS.modelOutput: troupe stopped reading it. */
export class ModelOutputTooLargeError extends ModelCallError {
  constructor(host: string) {
    super(
      `the model's answer${host ? ` from ${host}` : ''} passed ${n(LIMITS.modelOutput)} characters, so troupe stopped reading it (a runaway answer) — try again, or lower the server's max tokens`,
      false,
    );
  }
}
