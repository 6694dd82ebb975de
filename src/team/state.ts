import { z } from 'zod';
import { lazySchema } from '../config/lazy-schema.js';
import { DecisionSchema, ProposalSchema } from '../arbiter/proposal.js';

import { AwaitingSchema, DetourFrameSchema, MoveSchema } from '../engine/moves.js';

/** The latest persona-to-persona move and how many moves before it alternated between the same two states. */
const LoopRunSchema = lazySchema(() => z.object({ from: z.string(), to: z.string(), run: z.number().int().min(1) }));

/** How many handovers the rework stack remembers (a rework goes back at most this far). */
export const HISTORY_LIMIT = 64;

/** A consultation started while the team waited: the pause it interrupted, restored when the answer comes. */
export const ConsultPauseSchema = lazySchema(() =>
  z.object({
    awaiting: AwaitingSchema,
    pending: MoveSchema.nullable(),
    active: z.string().nullable(),
  }),
);

/** The team routing policy's state: handover stack, detours, deferred proposals, loop trail and counters. */
export const TeamRoutingSchema = lazySchema(() =>
  z.object({
    /** Who handed the work over, innermost last (rework goes back to the top); the newest HISTORY_LIMIT. */
    history: z.array(z.string()),
    detours: z.array(DetourFrameSchema),
    consultReturn: z.string().nullable(),
    consultPause: ConsultPauseSchema.nullable(),
    reworks: z.record(z.string(), z.number().int()),
    queue: z.array(ProposalSchema.extend({ expires: z.number().int() })),
    rulesFired: z.record(z.string(), z.number().int()),
    lastDecision: DecisionSchema.nullable(),
    pipelineIndex: z.number().int(),
    /** The alternation the loop detector is following (null after a reset or a move that breaks it). */
    loop: LoopRunSchema.nullable(),
    /** The latest texts of the conversation, as many as trigger rules read. */
    recentTexts: z.array(z.string()),
    approved: z.number().int(),
    sentBack: z.number().int(),
  }),
);

/** The team routing policy's state. */
export type TeamRouting = z.infer<typeof TeamRoutingSchema>;

/** Where a session keeps the team policy's state: `routing` (null for a session of another kind stored before kinds declared their own fields). */
export const TEAM_STATE_SLOTS = lazySchema(() => ({ routing: TeamRoutingSchema.nullable().optional() }));

declare module '../engine/session.js' {
  interface PolicySlots {
    /** The team routing policy's state (team sessions). */
    routing?: TeamRouting | null;
  }
}
