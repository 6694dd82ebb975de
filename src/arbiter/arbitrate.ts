import type { Criteria, Decision, Proposal, ScoredProposal } from './proposal.js';
import { PROPOSAL_SOURCES } from './proposal.js';
import { resolvePersona } from './resolve.js';

/** A persona as the arbiter sees it. */
export interface ArbiterPersona {
  id: string;
  name: string;
  /** Persona ids this persona may hand to; null means anyone. */
  allowed: ReadonlySet<string> | null;
}

/** Everything one arbitration needs; pure data. */
export interface ArbitrationInput {
  from: string;
  proposals: readonly Proposal[];
  /** Personas in roster order (used for resolution and the last tie-break). */
  roster: readonly ArbiterPersona[];
  weights: Criteria;
  /** Dependency at or above this marks a blocking proposal that wins first; null disables. */
  blockingDependency: number | null;
}

const EPSILON = 1e-9;

const orders = new WeakMap<readonly ArbiterPersona[], Map<string, number>>();

// Roster positions for the last tie-break, indexed once per roster (a team's roster never changes).
function rosterOrder(roster: readonly ArbiterPersona[]): Map<string, number> {
  let order = orders.get(roster);
  if (!order) {
    order = new Map(roster.map((r, i) => [r.id, i]));
    orders.set(roster, order);
  }
  return order;
}

/** Weighted score: sum of criteria times weights, rounded to 4 decimals (0.67, not 0.6699999999999999, in every record). */
export function scoreOf(criteria: Criteria, weights: Criteria): number {
  const sum = criteria.urgency * weights.urgency + criteria.dependency * weights.dependency + criteria.user_intent * weights.user_intent;
  return Math.round(sum * 10_000) / 10_000;
}

function validate(p: Proposal, input: ArbitrationInput, from: ArbiterPersona | undefined): ScoredProposal {
  const target = resolvePersona(input.roster, p.target);
  if (!target) {
    const known = input.roster.map((r) => r.id).join(', ');
    return { ...p, targetId: null, score: null, status: 'dropped', dropReason: `unknown persona "${p.target}" (known: ${known})` };
  }
  if (target.id === input.from && p.source !== 'user') {
    return { ...p, targetId: target.id, score: null, status: 'dropped', dropReason: 'a persona cannot hand to itself' };
  }
  if (p.source !== 'user' && from?.allowed && !from.allowed.has(target.id)) {
    return { ...p, targetId: target.id, score: null, status: 'dropped', dropReason: `${from.name} may not hand to ${target.name} (not in handoff_to)` };
  }
  return { ...p, targetId: target.id, score: scoreOf(p.criteria, input.weights), status: 'lost' };
}

/** Picks the next persona among proposals; records every proposal with its score or drop reason. Pure. */
export function arbitrate(input: ArbitrationInput): Decision {
  const from = resolvePersona(input.roster, input.from);
  const scored = input.proposals.map((p) => validate(p, input, from));
  const weights = input.weights;
  const valid = scored.filter((p) => p.status !== 'dropped');
  if (valid.length === 0) {
    const why = scored.length === 0 ? 'no proposals' : 'every proposal was dropped';
    return { winner: null, proposals: scored, why, weights };
  }

  const user = valid.find((p) => p.source === 'user');
  if (user) {
    user.status = 'winner';
    return { winner: user, proposals: scored, why: 'user command bypasses scoring', weights };
  }

  const threshold = input.blockingDependency;
  const blocking = threshold === null ? [] : valid.filter((p) => p.criteria.dependency >= threshold - EPSILON);
  const pool = blocking.length > 0 ? blocking : valid;
  const rosterIndex = (id: string | null) => rosterOrder(input.roster).get(id ?? '') ?? -1;
  const ranked = [...pool].sort(
    (a, b) =>
      (Math.abs(b.score! - a.score!) > EPSILON ? b.score! - a.score! : 0) ||
      b.criteria.dependency - a.criteria.dependency ||
      PROPOSAL_SOURCES.indexOf(a.source) - PROPOSAL_SOURCES.indexOf(b.source) ||
      rosterIndex(a.targetId) - rosterIndex(b.targetId),
  );
  const winner = ranked[0]!;
  winner.status = 'winner';
  const runnerUp = ranked[1];
  let why: string;
  if (blocking.length > 0 && blocking.length < valid.length) {
    why = `blocking dependency (${winner.criteria.dependency.toFixed(2)} >= ${threshold!.toFixed(2)}) wins over higher scores`;
  } else if (!runnerUp) {
    why = valid.length === 1 ? 'only valid proposal' : 'highest score';
  } else if (Math.abs(runnerUp.score! - winner.score!) <= EPSILON) {
    why = runnerUp.criteria.dependency !== winner.criteria.dependency ? 'tie on score; higher dependency' : 'tie on score and dependency; source then roster order';
  } else {
    why = `highest score (${winner.score!.toFixed(2)} vs ${runnerUp.score!.toFixed(2)})`;
  }
  return { winner, proposals: scored, why, weights };
}
