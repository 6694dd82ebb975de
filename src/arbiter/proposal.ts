/** Where a proposal came from, in tie-break order. */
export const PROPOSAL_SOURCES = ['user', 'agent', 'rule', 'queue'] as const;
/** A proposal's origin. */
export type ProposalSource = (typeof PROPOSAL_SOURCES)[number];

/** The three criteria a proposal is scored on, each 0..1. */
export interface Criteria {
  urgency: number;
  dependency: number;
  user_intent: number;
}

/** A candidate next state. `target` is the raw name as proposed (id or display name). */
export interface Proposal {
  target: string;
  source: ProposalSource;
  criteria: Criteria;
  reason: string;
  /** Persona id that raised the proposal (the active persona for agent and rule proposals). */
  proposer: string;
  /** A detour returns control to the proposer after the target answers. */
  detour?: boolean;
  ruleId?: string;
}

/** A proposal after arbitration: resolved target, score and verdict. */
export interface ScoredProposal extends Proposal {
  targetId: string | null;
  score: number | null;
  status: 'winner' | 'lost' | 'dropped';
  dropReason?: string;
}

/** The recorded outcome of one arbitration. */
export interface Decision {
  winner: ScoredProposal | null;
  proposals: ScoredProposal[];
  why: string;
  weights: Criteria;
}
