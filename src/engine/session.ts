import { z } from 'zod';
import { lazySchema } from '../config/lazy-schema.js';
import { AgentCallSchema, AwaitingSchema, MoveSchema } from './moves.js';

/** Session modes: the state machine with the arbiter, or the linear pipeline. */
export const ModeSchema = lazySchema(() => z.enum(['fsm', 'simple']));
/** A session mode. */
export type Mode = z.infer<typeof ModeSchema>;

/** Where a session is in its life. */
export const SessionStatusSchema = lazySchema(() => z.enum(['idle', 'running', 'awaiting_user', 'ended']));

/** The engine state format this build writes; older snapshots are migrated by the store. */
export const STATE_VERSION = 2;

/**
 * The core's part of a session's engine state: plain data, bounded in size (the history of a session
 * lives in its event log, not here), so a step and a snapshot cost the same at turn 10 and turn 10,000.
 * A policy keeps its own state beside these fields, under names it declares (see `PolicySlots`).
 */
export const CoreStateSchema = lazySchema(() =>
  z.object({
    version: z.literal(STATE_VERSION),
    id: z.string(),
    /** Name of the team or workflow definition the session runs. */
    definition: z.string(),
    brief: z.string(),
    mode: ModeSchema,
    status: SessionStatusSchema,
    /** The active leaf states' keys (one per active region). */
    configuration: z.array(z.string()),
    /** The agent that holds (or last held) the turn. */
    active: z.string().nullable(),
    turn: z.number().int(),
    turnBudget: z.number().int(),
    callSeq: z.number().int(),
    inFlight: AgentCallSchema.nullable(),
    pending: MoveSchema.nullable(),
    awaiting: AwaitingSchema.nullable(),
    /** Turns each agent state answered, by state key (failed and aborted attempts do not count), up to the visits in `recentVisits`. */
    visits: z.record(z.string(), z.number().int()),
    /**
     * The state keys of the latest turns, not yet counted in `visits`: they are folded in once there are
     * VISIT_BATCH of them, so a step never copies the whole record (read counts with `visitCount`).
     */
    recentVisits: z.array(z.string()).optional(),
    endReason: z.string().nullable(),
  }),
);

/** The core's part of a session's engine state. */
export type CoreState = z.infer<typeof CoreStateSchema>;

/**
 * The state each policy keeps in a session, by the field it is stored under: a policy module adds its
 * own with `declare module '…/engine/session.js' { interface PolicySlots { … } }` and declares the
 * field's schema for loading (the registry in src/kinds/ assembles the stored format). The core never
 * reads them; a step copies them only through its policy's `draft`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: an interface, so policy modules can add to it (declaration merging); a type alias cannot be
export interface PolicySlots {}

/** The whole engine state of a session: the core's fields and its policy's. */
export type SessionState = CoreState & PolicySlots;

/** How many visits a session keeps in `recentVisits` before folding them into `visits`. */
export const VISIT_BATCH = 64;

/** Turns an agent state answered so far (its folded count plus its recent visits). */
export function visitCount(s: Pick<CoreState, 'visits' | 'recentVisits'>, key: string): number {
  let n = s.visits[key] ?? 0;
  for (const k of s.recentVisits ?? []) if (k === key) n += 1;
  return n;
}

/** Every agent state's visit count, recent visits folded in (a new record: for views and exports, not for steps). */
export function allVisits(s: Pick<CoreState, 'visits' | 'recentVisits'>): Record<string, number> {
  const out = { ...s.visits };
  for (const k of s.recentVisits ?? []) out[k] = (out[k] ?? 0) + 1;
  return out;
}
