import { z } from 'zod';
// The snapshot stores each policy's own state, validated field by field on load: naming their schemas here
// keeps the stored format as it is (a neutral field would change what loading accepts and the key order).
import { TeamRoutingSchema } from '../routing/state.js';
import { WorkflowRunSchema } from '../workflow/run/state.js';
import { AgentCallSchema, AwaitingSchema, MoveSchema } from './moves.js';

/** Session modes: the state machine with the arbiter, or the linear pipeline. */
export const ModeSchema = z.enum(['fsm', 'simple']);
/** A session mode. */
export type Mode = z.infer<typeof ModeSchema>;

/** Where a session is in its life. */
export const SessionStatusSchema = z.enum(['idle', 'running', 'awaiting_user', 'ended']);

/** The engine state format this build writes; older snapshots are migrated by the store. */
export const STATE_VERSION = 2;

/**
 * The whole engine state of a session: plain data, bounded in size (the history of a session lives in
 * its event log, not here), so a step and a snapshot cost the same at turn 10 and turn 10,000.
 */
export const SessionStateSchema = z.object({
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
  /** Turns each agent state answered, by state key (failed and aborted attempts do not count). */
  visits: z.record(z.string(), z.number().int()),
  endReason: z.string().nullable(),
  /** Team routing state (null for definitions without team routing). */
  routing: TeamRoutingSchema.nullable(),
  /** A declarative workflow's run (absent or null for teams). */
  workflow: WorkflowRunSchema.nullable().optional(),
});

/** The whole engine state of a session. */
export type SessionState = z.infer<typeof SessionStateSchema>;
