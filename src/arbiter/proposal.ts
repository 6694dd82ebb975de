import { z } from 'zod';
import { lazySchema } from '../config/lazy-schema.js';

/** Where a proposal came from, in tie-break order. */
export const PROPOSAL_SOURCES = ['user', 'agent', 'rule', 'queue'] as const;
/** A proposal's origin. */
export type ProposalSource = (typeof PROPOSAL_SOURCES)[number];

/** The three criteria a proposal is scored on, each 0..1. */
export const CriteriaSchema = lazySchema(() => z.object({ urgency: z.number(), dependency: z.number(), user_intent: z.number() }));
/** The three criteria a proposal is scored on. */
export type Criteria = z.infer<typeof CriteriaSchema>;

/** A candidate next state. `target` is the raw name as proposed (id or display name). */
export const ProposalSchema = lazySchema(() =>
  z.object({
    target: z.string(),
    source: z.enum(PROPOSAL_SOURCES),
    criteria: CriteriaSchema,
    reason: z.string(),
    /** Persona id that raised the proposal (the active persona for agent and rule proposals). */
    proposer: z.string(),
    /** A detour returns control to the proposer after the target answers. */
    detour: z.boolean().optional(),
    ruleId: z.string().optional(),
  }),
);
/** A candidate next state. */
export type Proposal = z.infer<typeof ProposalSchema>;

/** A proposal after arbitration: resolved target, score and verdict. */
export const ScoredProposalSchema = lazySchema(() =>
  ProposalSchema.extend({
    targetId: z.string().nullable(),
    score: z.number().nullable(),
    status: z.enum(['winner', 'lost', 'dropped']),
    dropReason: z.string().optional(),
  }),
);
/** A proposal after arbitration. */
export type ScoredProposal = z.infer<typeof ScoredProposalSchema>;

/** The recorded outcome of one arbitration. */
export const DecisionSchema = lazySchema(() =>
  z.object({
    winner: ScoredProposalSchema.nullable(),
    proposals: z.array(ScoredProposalSchema),
    why: z.string(),
    weights: CriteriaSchema,
  }),
);
/** The recorded outcome of one arbitration. */
export type Decision = z.infer<typeof DecisionSchema>;
