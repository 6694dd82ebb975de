import { arbitrate } from '../arbiter/arbitrate.js';
import type { Criteria, Proposal } from '../arbiter/proposal.js';
import { matchTriggers } from '../arbiter/triggers.js';
import { resolvePersona } from '../arbiter/resolve.js';
import type { Directive } from '../directive/schema.js';
import type { DirectiveResult } from '../directive/parse.js';
import { applyMove, emit, nameOf, pathOf, record, startCall, toUser, type StepContext } from './context.js';
import { event } from './event-map.js';
import { alternationLength } from './loops.js';
import type { AgentCall, Move } from './session.js';

function criteriaOf(c: Partial<Criteria>, defaults: Criteria): Criteria {
  return {
    urgency: c.urgency ?? defaults.urgency,
    dependency: c.dependency ?? defaults.dependency,
    user_intent: c.user_intent ?? defaults.user_intent,
  };
}

/** Gathers agent, rule and queued proposals after a handoff directive. */
function proposalsFor(ctx: StepContext, persona: string, d: Directive): Proposal[] {
  const { def, s } = ctx;
  const defaults = def.arbiter.defaults;
  const out: Proposal[] = [];
  if (d.next_agent) {
    out.push({ target: d.next_agent, source: 'agent', criteria: criteriaOf(d, defaults), reason: d.transition, proposer: persona });
  }
  for (const alt of d.alternatives ?? []) {
    out.push({ target: alt.next_agent, source: 'agent', criteria: criteriaOf(alt, defaults), reason: alt.reason ?? 'alternative', proposer: persona });
  }
  const recent: string[] = [];
  for (let i = s.transcript.length - 1; i >= 0 && recent.length < def.arbiter.triggerWindow; i--) {
    const t = s.transcript[i]!;
    if (t.kind !== 'note' && t.text !== '') recent.unshift(t.text);
  }
  out.push(
    ...matchTriggers(def.rules, { from: persona, texts: recent, turn: s.turn, lastFired: s.rulesFired, cooldown: def.arbiter.ruleCooldown }),
  );
  s.queue = s.queue.filter((q) => q.expires > s.turn);
  // A fresh agent proposal for the same persona supersedes the queued one.
  const fresh = new Set(out.filter((p) => p.source === 'agent').map((p) => resolvePersona(def.agents, p.target)?.id));
  for (const q of s.queue) if (!fresh.has(q.target)) out.push({ ...q, source: 'queue' });
  return out;
}

/** Moves that go through the approval gate when the team's policy asks for it. */
function needsGate(ctx: StepContext, from: string, move: Move): boolean {
  if (move.to === 'user' || move.kind === 'user' || move.kind === 'consult') return false;
  if (ctx.def.approval === 'every') return true;
  if (ctx.def.approval === 'on_major_change') return pathOf(ctx, from).split('.')[0] !== pathOf(ctx, move.to).split('.')[0];
  return false;
}

/** Applies a routed move unless a limit or the approval gate stops it first. */
function proceed(ctx: StepContext, persona: string, move: Move): void {
  const { s, def } = ctx;
  if (move.to !== 'user' && move.kind !== 'detour_return' && move.kind !== 'consult') {
    const run = alternationLength(s, pathOf(ctx, persona), pathOf(ctx, move.to));
    if (run >= def.limits.ping_pong) {
      toUser(ctx, 'limit', `ping-pong: ${nameOf(ctx, persona)} and ${nameOf(ctx, move.to)} handed back and forth ${run} times`, move);
      return;
    }
  }
  if (s.turn >= s.turnBudget) {
    toUser(ctx, 'limit', `max turns reached (${s.turnBudget})`, move);
    return;
  }
  if (needsGate(ctx, persona, move)) {
    toUser(ctx, 'gate', `approval gate: ${nameOf(ctx, persona)} -> ${nameOf(ctx, move.to)} (${move.reason})`, move, move);
    return;
  }
  applyMove(ctx, move);
}

function routeHandoff(ctx: StepContext, persona: string, d: Directive, text: string): void {
  const { s, def } = ctx;
  const decision = arbitrate({
    from: persona,
    proposals: proposalsFor(ctx, persona, d),
    roster: def.agents,
    weights: def.arbiter.weights,
    blockingDependency: def.arbiter.blockingDependency,
  });
  s.lastDecision = decision;
  emit(ctx, event('arbitration', { from: pathOf(ctx, persona), decision }));
  const winner = decision.winner;
  if (!winner || !winner.targetId) {
    const dropped = decision.proposals.map((p) => p.dropReason).filter(Boolean).join('; ');
    toUser(ctx, 'no_route', `no valid next persona from ${nameOf(ctx, persona)}${dropped ? `: ${dropped}` : ''}`);
    return;
  }
  const to = winner.targetId;
  s.queue = s.queue.filter((q) => q.target !== to && q.target !== winner.target);
  for (const p of decision.proposals) {
    if (p.status === 'lost' && p.source === 'agent' && p.targetId && !s.queue.some((q) => q.target === p.targetId)) {
      s.queue.push({ ...p, target: p.targetId, source: 'queue', expires: s.turn + def.arbiter.queueTtl });
    }
  }
  if (winner.ruleId) s.rulesFired[winner.ruleId] = s.turn;
  const reason = `${winner.source === 'rule' ? 'rule' : d.transition}: ${winner.reason} — ${decision.why}`;
  const arbitration = decision.proposals
    .map((p) => `${p.targetId ? nameOf(ctx, p.targetId) : p.target} ${p.score === null ? `dropped (${p.dropReason})` : p.score.toFixed(2)}${p.status === 'winner' ? ' ✓' : ''} [${p.source}]`)
    .join(', ');
  if (winner.detour) {
    proceed(ctx, persona, {
      to,
      kind: 'rule',
      reason,
      arbitration,
      pushHistory: true,
      detour: { target: to, returnTo: persona, reason: winner.reason },
      inbox: { kind: 'detour', from: persona, text, reason: winner.reason },
    });
    return;
  }
  proceed(ctx, persona, {
    to,
    kind: 'agent',
    reason,
    arbitration,
    pushHistory: true,
    inbox: { kind: 'handoff', from: persona, text, approved: d.transition === 'APPROVE_AND_HANDOFF' },
  });
}

function routeRework(ctx: StepContext, persona: string, d: Directive): void {
  const { s, def } = ctx;
  const target = s.history[s.history.length - 1];
  const reason = d.rework_reason?.trim() || 'no reason given';
  if (!target) {
    toUser(ctx, 'no_route', `${nameOf(ctx, persona)} requested rework, but nobody handed the work over: ${reason}`);
    return;
  }
  const pair = `${persona}>${target}`;
  s.reworks[pair] = (s.reworks[pair] ?? 0) + 1;
  const move: Move = { to: target, kind: 'rework', reason: `REQUEST_REWORK: ${reason}`, popHistory: true, inbox: { kind: 'rework', from: persona, reason, byUser: false } };
  if (s.reworks[pair]! > def.limits.max_reworks_per_pair) {
    toUser(ctx, 'limit', `max reworks reached: ${nameOf(ctx, persona)} -> ${nameOf(ctx, target)} (${def.limits.max_reworks_per_pair})`, move);
    return;
  }
  proceed(ctx, persona, move);
}

function routePipeline(ctx: StepContext, persona: string, d: Directive, text: string, stages: { stage: string; persona: string }[]): void {
  const { s } = ctx;
  const next = s.pipelineIndex + 1;
  const stage = stages[next];
  if (!stage) {
    toUser(ctx, 'pipeline_complete', `pipeline complete (${stages.map((st) => st.stage).join(' -> ')})`);
    return;
  }
  proceed(ctx, persona, {
    to: stage.persona,
    pipelineIndex: next,
    kind: 'pipeline',
    reason: `pipeline: ${stage.stage}`,
    pushHistory: true,
    inbox: { kind: 'handoff', from: persona, text, approved: d.transition === 'APPROVE_AND_HANDOFF' },
  });
}

function recordApproval(ctx: StepContext, persona: string, d: Directive): void {
  const { s } = ctx;
  const approves = d.transition === 'APPROVE_AND_HANDOFF' || d.approval_status === 'APPROVED';
  const rejects = d.transition === 'REQUEST_REWORK' || d.approval_status === 'REQUEST_REWORK';
  if (!approves && !rejects) return;
  const of = s.history[s.history.length - 1] ?? 'brief';
  const status = rejects ? 'REQUEST_REWORK' : 'APPROVED';
  const reason = rejects ? d.rework_reason : undefined;
  s.approvals.push({ turn: s.turn, by: persona, of, status, ...(reason ? { reason } : {}) });
  emit(ctx, event('approval', { by: persona, of, status, ...(reason ? { reason } : {}) }));
}

/** Handles a directive that failed validation: one repair round, then the user. */
function invalidDirective(ctx: StepContext, call: AgentCall, text: string, error: string): void {
  const { s } = ctx;
  const repairing = call.attempt < 2;
  emit(ctx, event('directive_invalid', { turn_id: call.turnId, persona: call.persona, error, attempt: call.attempt, repairing }));
  if (repairing) {
    startCall(ctx, call.persona, call.inbox, { attempt: call.attempt + 1, repair: error, priorText: text });
    return;
  }
  s.turn += 1;
  record(ctx, { kind: 'agent', persona: call.persona, path: call.path, text, status: 'invalid', flags: [error] });
  emit(ctx, event('agent_message', { turn_id: call.turnId, path: call.path, persona: call.persona, text, turn: s.turn }));
  toUser(ctx, 'invalid_directive', `${nameOf(ctx, call.persona)} gave no valid directive after a repair round (${error}); reply, !handoff <persona> or !continue`);
}

/** Applies a finished persona turn: records it, then routes by mode, detours, rework and arbitration. */
export function agentCompleted(ctx: StepContext, turnId: string, rawText: string, result: DirectiveResult): void {
  const { s, def } = ctx;
  const call = s.inFlight;
  if (!call || call.turnId !== turnId) return;
  s.inFlight = null;
  const joined = [call.priorText, rawText].filter((t) => t && t.trim() !== '').join('\n\n');
  if (!result.ok) {
    invalidDirective(ctx, call, joined, result.error);
    return;
  }
  const d = result.directive;
  const persona = call.persona;
  const text = joined.trim() === '' ? (d.content ?? '') : joined;
  s.turn += 1;
  record(ctx, { kind: 'agent', persona, path: call.path, text, directive: d, status: 'ok' });
  emit(ctx, event('agent_message', { turn_id: turnId, path: call.path, persona, text, turn: s.turn }));
  emit(ctx, event('directive', { turn_id: turnId, path: call.path, persona, directive: d, source: result.source }));
  recordApproval(ctx, persona, d);

  if (call.inbox.kind === 'consult' && s.consultReturn !== null) {
    const back = s.consultReturn;
    s.consultReturn = null;
    if (back === 'user') {
      const pause = s.consultPause;
      s.consultPause = null;
      if (!pause) {
        toUser(ctx, 'consult', `${nameOf(ctx, persona)} answered your question`);
        return;
      }
      toUser(ctx, pause.awaiting.code, `${nameOf(ctx, persona)} answered; still waiting: ${pause.awaiting.reason}`, pause.awaiting.resume, pause.pending ?? undefined, pause.active);
      return;
    }
    applyMove(ctx, { to: back, kind: 'consult', reason: `consultation with ${nameOf(ctx, persona)} done`, inbox: { kind: 'consult_answer', from: persona, text } });
    return;
  }
  if (d.transition === 'RESPOND_TO_USER') {
    toUser(ctx, 'respond_to_user', `${nameOf(ctx, persona)} asks you to respond`);
    return;
  }
  if (d.transition === 'COMPLETE') {
    toUser(ctx, 'complete', `${nameOf(ctx, persona)} declared the work complete; !approve to end or reply to continue`);
    return;
  }
  const routing = def.routing[s.mode];
  if (routing.kind === 'pipeline') {
    routePipeline(ctx, persona, d, text, routing.stages);
    return;
  }
  const detour = s.detours[s.detours.length - 1];
  if (detour && detour.target === persona) {
    proceed(ctx, persona, {
      to: detour.returnTo,
      kind: 'detour_return',
      reason: `detour done (${detour.reason}); back to ${nameOf(ctx, detour.returnTo)}`,
      endDetour: true,
      popHistory: true,
      inbox: { kind: 'detour_return', from: persona, text },
    });
    return;
  }
  if (d.transition === 'REQUEST_REWORK') {
    routeRework(ctx, persona, d);
    return;
  }
  routeHandoff(ctx, persona, d, text);
}

/** Records a failed call (after the runtime's retries) and waits for the user; `!continue` retries it. */
export function agentFailed(ctx: StepContext, turnId: string, reason: string): void {
  const call = ctx.s.inFlight;
  if (!call || call.turnId !== turnId) return;
  ctx.s.inFlight = null;
  record(ctx, { kind: 'note', text: `${nameOf(ctx, call.persona)}'s turn failed: ${reason}` });
  emit(ctx, event('error', { message: reason, where: `${call.path} (${call.turnId})` }));
  toUser(ctx, 'failure', `${nameOf(ctx, call.persona)}'s turn failed: ${reason}; !continue retries`, call);
}

