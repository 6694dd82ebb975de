import { z } from 'zod';
import { lazySchema } from '../config/lazy-schema.js';
import { UserError } from '../errors.js';

/** A turn kept raw: a persona's message or a user line, typed by what it decided. */
export const RawTurnSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    turn: z.number().int().min(0),
    author: z.string().min(1).describe('persona id, or "user"'),
    type: z.enum(['decision', 'approval', 'rejection', 'general']),
    text: z.string(),
    turnId: z.string().optional(),
    tokens: z.number().int().min(0),
  }),
);

/** A pinned item: a key decision, an approval or a rework request, kept verbatim and never summarised. */
export const PinnedSchema = lazySchema(() =>
  z.object({
    kind: z.enum(['decision', 'approval', 'rejection']),
    turn: z.number().int().min(0),
    by: z.string().min(1),
    /** Whose work an approval or rejection is about. */
    of: z.string().optional(),
    /** The decision or the rework reason, verbatim. */
    text: z.string(),
    /** How many times the same verdict was repeated in a row (approvals). */
    repeats: z.number().int().min(1).default(1),
  }),
);

/** What the summariser returns: the structured summary of a slice of conversation. */
export const SummaryContentSchema = lazySchema(() =>
  z.object({
    decisions: z.array(z.string()).default([]),
    discussions: z.array(z.string()).default([]),
    pending: z.array(z.string()).default([]),
  }),
);

/** A stored summary: its content and which turns it covers. */
export const SummarySchema = lazySchema(() =>
  SummaryContentSchema.extend({
    id: z.number().int(),
    first: z.number().int().min(0).describe('first engine turn covered'),
    last: z.number().int().min(0).describe('last engine turn covered'),
    count: z.number().int().min(1).describe('raw turns covered'),
    parts: z.number().int().min(1).describe('segment summaries merged into this one'),
    tokens: z.number().int().min(0),
  }),
);

/** The whole memory as plain data: what a session file stores and `Memory.fromJSON` restores. */
export const MemoryStateSchema = lazySchema(() =>
  z.object({
    version: z.literal(1),
    brief: z.string(),
    nextId: z.number().int().min(0),
    turn: z.number().int().min(0),
    turnsSeen: z.number().int().min(0),
    sinceCompression: z.number().int().min(0),
    retryAt: z.number().int().min(0),
    failures: z.number().int().min(0),
    raw: z.array(RawTurnSchema),
    pinned: z.array(PinnedSchema),
    summaries: z.array(SummarySchema),
    /** Pins in the pinned block of the prompt's prefix (the oldest first); later ones are listed after the recent turns until they join it. Absent: all of them. */
    settled: z.number().int().min(0).optional(),
    /** Pins moved out to bound the state (the oldest; the session's journal keeps them): how many, and the turns they span. */
    moved: z.object({ count: z.number().int().min(1), first: z.number().int().min(0), last: z.number().int().min(0) }).optional(),
  }),
);

export type RawTurn = z.infer<typeof RawTurnSchema>;
export type TurnType = RawTurn['type'];
export type Pinned = z.infer<typeof PinnedSchema>;
export type SummaryContent = z.infer<typeof SummaryContentSchema>;
export type Summary = z.infer<typeof SummarySchema>;
export type MemoryState = z.infer<typeof MemoryStateSchema>;
/** Pins moved out of the memory state to bound it: how many, and the turns they span. */
export type MovedPins = NonNullable<MemoryState['moved']>;

/** An empty memory. */
export function emptyMemoryState(): MemoryState {
  return { version: 1, brief: '', nextId: 0, turn: 0, turnsSeen: 0, sinceCompression: 0, retryAt: 0, failures: 0, raw: [], pinned: [], summaries: [], settled: 0 };
}

/** Stored memory that fails validation; `detail` is the message without its source, so the store can name the file. */
export class MemoryStateError extends UserError {
  constructor(
    readonly detail: string,
    source: string,
  ) {
    super(`${source}: ${detail}`);
  }
}

/** Validates stored memory state; bad data gets a one-line error naming the field. */
export function parseMemoryState(data: unknown, source = 'session file'): MemoryState {
  const parsed = MemoryStateSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = ['memory', ...issue.path.map(String)].join('.');
  throw new MemoryStateError(`${field}: ${issue.message} — the stored memory is damaged; remove the "memory" section to start memory afresh`, source);
}
