import { z } from 'zod';
import type { TroupeEvent } from '../../engine/event-map.js';
import { ModeSchema, type SessionState } from '../../engine/session.js';
import type { UsageState } from '../../usage/usage-meter.js';
import type { TransitionTable } from '../../warming/transitions.js';

/** A model id as a request may name one (as the API checks it). */
const ModelId = z.string().regex(/^[\x21-\x7e]{1,200}$/);
const TiersSchema = z.strictObject({ base: ModelId.optional(), smart: ModelId.optional(), fast: ModelId.optional() });

/** What the session object keeps once, at creation: what it runs and who started it. */
export const SessionMetaSchema = z.object({
  version: z.literal(2),
  id: z.string(),
  team: z.string(),
  kind: z.enum(['team', 'workflow']),
  /** The workflow's name (its plan is the `plan` key). */
  workflow: z.string().nullable(),
  /** The model label of the worker that created it. */
  model: z.string(),
  tiers: TiersSchema.optional(),
  createdAt: z.string(),
});
/** What the session object keeps once, at creation. */
export type SessionMeta = z.infer<typeof SessionMetaSchema>;

/** Where a worker may push a session's streaming deltas (the serve process that handles its readers). */
export const LiveTargetSchema = z.object({ url: z.string().url(), token: z.string().min(16).max(200) });
/** Where a worker may push a session's streaming deltas. */
export type LiveTarget = z.infer<typeof LiveTargetSchema>;

/**
 * The session's working state, read and written once per invocation (the `core` key): the engine state,
 * the brief it starts on, the last event's seq, the rolling memory and usage totals as plain data, the demo story's progress,
 * whether the session was let go (`!quit`), and where its live deltas go.
 */
export interface SessionCore {
  state: SessionState;
  /** The brief (or workflow input) the session starts on. */
  brief: string;
  lastSeq: number;
  memory: unknown;
  usage: unknown;
  demo: Record<string, number> | null;
  detached: boolean;
  live: LiveTarget | null;
  /** The session's own transitions (who followed whom), as its checkpoint keeps them elsewhere; absent in sessions stored before. */
  transitions?: TransitionTable;
  /** What the team's (or workflow's) newest sessions did, read once when this one was created, newest first. */
  learned?: LearnedSession[];
}

/** One session's transitions, as the learning object keeps them. */
export interface LearnedSession {
  id: string;
  transitions: TransitionTable;
}

/** What readers see of a session, written at every quiet point (the `head` key): small, whatever the session's size; usage as the meter has it. */
export interface SessionHead {
  lastSeq: number;
  updatedAt: string;
  state: HeadState;
  /** The meter's totals (null: nothing metered yet). */
  usage: UsageState | null;
}

/** The engine state's fields the API's view and the session list show. */
export type HeadState = Pick<SessionState, 'id' | 'definition' | 'status' | 'brief' | 'turn' | 'configuration' | 'active' | 'awaiting' | 'endReason'>;

/** The head's part of an engine state. */
export function headState(s: SessionState): HeadState {
  return { id: s.id, definition: s.definition, status: s.status, brief: s.brief, turn: s.turn, configuration: s.configuration, active: s.active, awaiting: s.awaiting, endReason: s.endReason };
}

/** `create`: a team session on a brief, or a named workflow of the workers on an input; the serve process's live target. */
export const CreateRequestSchema = z.strictObject({
  brief: z.string().min(1).optional(),
  workflow: z.string().min(1).optional(),
  input: z.string().optional(),
  mode: ModeSchema.optional(),
  models: TiersSchema.optional(),
  live: LiveTargetSchema.optional(),
});
/** `create`: what to run. */
export type CreateRequest = z.infer<typeof CreateRequestSchema>;

/** `line`: a line exactly as typed in the terminal UI, and where this reader's live deltas go. */
export const LineRequestSchema = z.strictObject({ text: z.string(), live: LiveTargetSchema.optional() });

/** `apply`: the line to apply (none: only continue the session), when it was typed, the live target. */
export const ApplyRequestSchema = z.strictObject({ text: z.string().optional(), at: z.number(), live: LiveTargetSchema.nullable().optional() });
/** `apply`: the line to apply. */
export type ApplyRequest = z.infer<typeof ApplyRequestSchema>;

/** `events`: the events after a sequence number, at most `limit` of them. */
export const EventsRequestSchema = z.object({ after: z.number().int().min(0), limit: z.number().int().min(1).max(2_000).optional() });

/** What `events` answers: the events (oldest first), the last sequence number, and the session's status. */
export interface EventsPage {
  events: TroupeEvent[];
  lastSeq: number;
  status: string;
}

/** What `line` answers: nothing to show (the events tell it), output lines (an inspection), or the reader left. */
export type LineAnswer = { kind: 'none' } | { kind: 'quit' } | { kind: 'output'; title: string; lines: string[] };

/** One entry of the session index. */
export const IndexEntrySchema = z.object({ id: z.string(), brief: z.string(), team: z.string(), createdAt: z.string() });
/** One entry of the session index. */
export type IndexEntry = z.infer<typeof IndexEntrySchema>;

/** A line of the session list, as the `listing` handler answers it (the API's list item, and its kind). */
export interface ListingLine {
  id: string;
  team: string;
  kind: 'team' | 'workflow';
  /** The workflow it runs, or null for a team session. */
  workflow: string | null;
  brief: string;
  status: SessionState['status'];
  /** The status in words, as `troupe sessions` and the embedded backend put it (statusWords). */
  statusText: string;
  turns: number;
  updatedAt: string;
  hosted: boolean;
}
