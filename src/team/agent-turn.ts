import { arbitrate } from '../arbiter/arbitrate.js';
import type { Directive, DirectiveResult } from '../directive/schema.js';
import { agentById } from '../engine/definition.js';
import { countVisit, emit, nameOf, pathOf, startCall, toUser, type StepContext } from '../engine/context.js';
import { event } from '../engine/event-map.js';
import type { AgentCall, Move } from '../engine/moves.js';
import { alternationLength } from './loops.js';
import { applyMove, remember, routingOf } from './moves.js';
import { proposalsFor } from './proposals.js';
import { teamOf } from './team-settings.js';

/** Moves that go through the approval gate when the team's policy asks for it. */
function needsGate(ctx: StepContext, from: string, move: Move): boolean {
  if (move.to === 'user' || move.kind === 'user' || move.kind === 'consult') return false;
  const { approval } = teamOf(ctx.def);
  if (approval === 'every') return true;
  if (approval === 'on_major_change') return agentById(ctx.def, from)?.major !== agentById(ctx.def, move.to)?.major;
  return false;
}

/** Applies a routed move unless a limit or the approval gate stops it first. */
function proceed(ctx: StepContext, persona: string, move: Move): void {
  const { s, def } = ctx;
  if (move.to !== 'user' && move.kind !== 'detour_return' && move.kind !== 'consult') {
    const run = alternationLength(routingOf(ctx), pathOf(ctx, persona), pathOf(ctx, move.to));
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
  const r = routingOf(ctx);
  const { arbiter } = teamOf(def);
  const decision = arbitrate({
    from: persona,
    proposals: proposalsFor(ctx, persona, d),
    roster: def.agents,
    weights: arbiter.weights,
    blockingDependency: arbiter.blockingDependency,
  });
  r.lastDecision = decision;
  emit(ctx, event('arbitration', { from: pathOf(ctx, persona), decision }));
  const winner = decision.winner;
  if (!winner?.targetId) {
    const dropped = decision.proposals
      .map((p) => p.dropReason)
      .filter(Boolean)
      .join('; ');
    toUser(ctx, 'no_route', `no valid next persona from ${nameOf(ctx, persona)}${dropped ? `: ${dropped}` : ''}`);
    return;
  }
  const to = winner.targetId;
  r.queue = r.queue.filter((q) => q.target !== to && q.target !== winner.target);
  for (const p of decision.proposals) {
    if (p.status === 'lost' && p.source === 'agent' && p.targetId && !r.queue.some((q) => q.target === p.targetId)) {
      r.queue = [...r.queue, { ...p, target: p.targetId, source: 'queue', expires: s.turn + arbiter.queueTtl }];
    }
  }
  if (winner.ruleId) r.rulesFired = { ...r.rulesFired, [winner.ruleId]: s.turn };
  // An agent's own proposal carries its transition as its reason: say it once ("HANDOFF_TO_AGENT — only valid proposal").
  const what = winner.source === 'rule' ? 'rule' : d.transition;
  const reason = `${what}${winner.reason && winner.reason !== what ? `: ${winner.reason}` : ''} — ${decision.why}`;
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
  const { def } = ctx;
  const r = routingOf(ctx);
  const target = r.history[r.history.length - 1];
  const reason = d.rework_reason?.trim() || 'no reason given';
  if (!target) {
    toUser(ctx, 'no_route', `${nameOf(ctx, persona)} requested rework, but nobody handed the work over: ${reason}`);
    return;
  }
  const pair = `${persona}>${target}`;
  const count = (r.reworks[pair] ?? 0) + 1;
  r.reworks = { ...r.reworks, [pair]: count };
  const move: Move = { to: target, kind: 'rework', reason: `REQUEST_REWORK: ${reason}`, popHistory: true, inbox: { kind: 'rework', from: persona, reason, byUser: false } };
  if (count > def.limits.max_reworks_per_pair) {
    toUser(ctx, 'limit', `max reworks reached: ${nameOf(ctx, persona)} -> ${nameOf(ctx, target)} (${def.limits.max_reworks_per_pair})`, move);
    return;
  }
  proceed(ctx, persona, move);
}

function routePipeline(ctx: StepContext, persona: string, d: Directive, text: string, stages: { stage: string; persona: string }[]): void {
  const next = routingOf(ctx).pipelineIndex + 1;
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

/** Counts an approval or rejection of the work received and publishes it. */
export function countApproval(ctx: StepContext, by: string, of: string, status: 'APPROVED' | 'REQUEST_REWORK', reason?: string): void {
  const r = routingOf(ctx);
  if (status === 'APPROVED') r.approved += 1;
  else r.sentBack += 1;
  emit(ctx, event('approval', { turn: ctx.s.turn, by, of, status, ...(reason ? { reason } : {}) }));
}

function recordApproval(ctx: StepContext, persona: string, d: Directive): void {
  const approves = d.transition === 'APPROVE_AND_HANDOFF' || d.approval_status === 'APPROVED';
  const rejects = d.transition === 'REQUEST_REWORK' || d.approval_status === 'REQUEST_REWORK';
  if (!approves && !rejects) return;
  const r = routingOf(ctx);
  const of = r.history[r.history.length - 1] ?? 'brief';
  countApproval(ctx, persona, of, rejects ? 'REQUEST_REWORK' : 'APPROVED', rejects ? d.rework_reason : undefined);
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
  countVisit(ctx, call.path);
  remember(ctx, text);
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
  countVisit(ctx, call.path);
  remember(ctx, text);
  emit(ctx, event('agent_message', { turn_id: turnId, path: call.path, persona, text, turn: s.turn }));
  emit(ctx, event('directive', { turn_id: turnId, path: call.path, persona, directive: d, source: result.source }));
  recordApproval(ctx, persona, d);

  const r = routingOf(ctx);
  if (call.inbox.kind === 'consult' && r.consultReturn !== null) {
    const back = r.consultReturn;
    r.consultReturn = null;
    if (back === 'user') {
      const pause = r.consultPause;
      r.consultPause = null;
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
  const routing = teamOf(def).routing[s.mode];
  if (routing.kind === 'pipeline') {
    routePipeline(ctx, persona, d, text, routing.stages);
    return;
  }
  const detour = r.detours[r.detours.length - 1];
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
  emit(ctx, event('error', { message: reason, where: `${call.path} (${call.turnId})` }));
  toUser(ctx, 'failure', `${nameOf(ctx, call.persona)}'s turn failed: ${reason}; !continue retries`, call);
}
