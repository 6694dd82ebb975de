import { z } from 'zod';
import { lazySchema } from '../config/lazy-schema.js';
import { InboxSchema } from './inbox.js';

/** One agent call the runtime must make (or is making). */
export const AgentCallSchema = lazySchema(() =>
  z.object({
    turnId: z.string(),
    persona: z.string(),
    /** Key of the state the call runs in. */
    path: z.string(),
    attempt: z.number().int(),
    inbox: InboxSchema,
    /** Validation error sent back in the repair round. */
    repair: z.string().optional(),
    /** The agent's words from the first attempt, kept across the repair round. */
    priorText: z.string().optional(),
    /** The branch of a parallel state the call belongs to. */
    branch: z.string().optional(),
    /** Cut the call off after this long (a branch's timeout). */
    timeoutMs: z.number().int().optional(),
  }),
);

/** One agent call the runtime must make (or is making). */
export type AgentCall = z.infer<typeof AgentCallSchema>;

/** What kind of move a transition was. */
export const TransitionKindSchema = lazySchema(() => z.enum(['agent', 'rework', 'rule', 'detour_return', 'pipeline', 'user', 'consult', 'system', 'workflow']));
/** What kind of move a transition was. */
export type TransitionKindName = z.infer<typeof TransitionKindSchema>;

/** A state change, as the loop detector remembers it. */
export const TransitionRecordSchema = lazySchema(() =>
  z.object({
    turn: z.number().int(),
    from: z.string(),
    to: z.string(),
    kind: TransitionKindSchema,
    reason: z.string(),
    /** The arbitration behind it, compact: "Lead Engineer 0.69 ✓, CEO 0.71, ...". */
    arbitration: z.string().optional(),
  }),
);
/** A state change. */
export type TransitionRecord = z.infer<typeof TransitionRecordSchema>;

/** A detour in progress: after `target` answers, control returns to `returnTo`. */
export const DetourFrameSchema = lazySchema(() => z.object({ target: z.string(), returnTo: z.string(), reason: z.string() }));
/** A detour in progress. */
export type DetourFrame = z.infer<typeof DetourFrameSchema>;

/** A planned move to an agent or to the user, applied now or held at an approval gate. */
export const MoveSchema = lazySchema(() =>
  z.object({
    to: z.string(),
    kind: TransitionKindSchema,
    reason: z.string(),
    inbox: InboxSchema.optional(),
    pushHistory: z.boolean().optional(),
    popHistory: z.boolean().optional(),
    detour: DetourFrameSchema.optional(),
    endDetour: z.boolean().optional(),
    arbitration: z.string().optional(),
    /** Simple mode: the pipeline stage this move enters (set only when the move really happens). */
    pipelineIndex: z.number().int().optional(),
  }),
);
/** A planned move to an agent (`to` is its id) or to the user (`to` is "user"). */
export type Move = z.infer<typeof MoveSchema>;

/** Why a session pauses for the user. */
export const AwaitCodeSchema = lazySchema(() =>
  z.enum(['respond_to_user', 'complete', 'gate', 'limit', 'failure', 'invalid_directive', 'no_route', 'consult', 'pipeline_complete', 'start', 'question']),
);

/** Why the session waits for the user, and what `!continue` would do. */
export const AwaitingSchema = lazySchema(() =>
  z.object({
    reason: z.string(),
    code: AwaitCodeSchema,
    resume: z.union([AgentCallSchema, MoveSchema]).nullable(),
  }),
);
/** Why the session waits for the user. */
export type Awaiting = z.infer<typeof AwaitingSchema>;
