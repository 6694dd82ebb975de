import { z } from 'zod';
import { DecisionSchema, ProposalSchema } from '../arbiter/proposal.js';

import { AwaitingSchema, DetourFrameSchema, MoveSchema, TransitionKindSchema } from '../engine/moves.js';

const LoopStepSchema = z.object({ from: z.string(), to: z.string(), kind: TransitionKindSchema });

/** A consultation started while the team waited: the pause it interrupted, restored when the answer comes. */
export const ConsultPauseSchema = z.object({
  awaiting: AwaitingSchema,
  pending: MoveSchema.nullable(),
  active: z.string().nullable(),
});

/** The team routing policy's state: handover stack, detours, deferred proposals, loop trail and counters. */
export const TeamRoutingSchema = z.object({
  /** Who handed the work over, innermost last (rework goes back to the top). */
  history: z.array(z.string()),
  detours: z.array(DetourFrameSchema),
  consultReturn: z.string().nullable(),
  consultPause: ConsultPauseSchema.nullable(),
  reworks: z.record(z.string(), z.number().int()),
  queue: z.array(ProposalSchema.extend({ expires: z.number().int() })),
  rulesFired: z.record(z.string(), z.number().int()),
  lastDecision: DecisionSchema.nullable(),
  pipelineIndex: z.number().int(),
  /** Persona-to-persona moves since the loop detector was last reset (bounded by the ping-pong limit). */
  loopTrail: z.array(LoopStepSchema),
  /** The latest texts of the conversation, as many as trigger rules read. */
  recentTexts: z.array(z.string()),
  approved: z.number().int(),
  sentBack: z.number().int(),
});

/** The team routing policy's state. */
export type TeamRouting = z.infer<typeof TeamRoutingSchema>;
