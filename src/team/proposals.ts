import type { Criteria, Proposal } from '../arbiter/proposal.js';
import { matchTriggers } from '../arbiter/triggers.js';
import { resolvePersona } from '../arbiter/resolve.js';
import type { Directive } from '../directive/schema.js';
import type { StepContext } from '../engine/context.js';
import { routingOf } from './moves.js';
import { teamOf } from './team-settings.js';

function criteriaOf(c: Partial<Criteria>, defaults: Criteria): Criteria {
  return {
    urgency: c.urgency ?? defaults.urgency,
    dependency: c.dependency ?? defaults.dependency,
    user_intent: c.user_intent ?? defaults.user_intent,
  };
}

/** Gathers agent, rule and queued proposals after a handoff directive; drops expired queue entries. */
export function proposalsFor(ctx: StepContext, persona: string, d: Directive): Proposal[] {
  const { def, s } = ctx;
  const r = routingOf(ctx);
  const { arbiter, rules } = teamOf(def);
  const defaults = arbiter.defaults;
  const out: Proposal[] = [];
  if (d.next_agent) {
    out.push({ target: d.next_agent, source: 'agent', criteria: criteriaOf(d, defaults), reason: d.transition, proposer: persona });
  }
  for (const alt of d.alternatives ?? []) {
    out.push({ target: alt.next_agent, source: 'agent', criteria: criteriaOf(alt, defaults), reason: alt.reason ?? 'alternative', proposer: persona });
  }
  out.push(...matchTriggers(rules, { from: persona, texts: r.recentTexts, turn: s.turn, lastFired: r.rulesFired, cooldown: arbiter.ruleCooldown }));
  r.queue = r.queue.filter((q) => q.expires > s.turn);
  // A fresh agent proposal for the same persona supersedes the queued one.
  const fresh = new Set(out.filter((p) => p.source === 'agent').map((p) => resolvePersona(def.agents, p.target)?.id));
  for (const q of r.queue) if (!fresh.has(q.target)) out.push({ ...q, source: 'queue' });
  return out;
}
