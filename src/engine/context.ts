import { nodeByKey, topLevelOf } from './chart/chart.js';
import { transitionSets, type TransitionSets } from './chart/configuration.js';
import type { MachineDefinition, StepContext } from './definition.js';
import { agentById } from './definition.js';
import { event, type EngineEvent } from './event-map.js';
import type { Inbox } from './inbox.js';
import type { AgentCall, Awaiting, Move } from './moves.js';
import { allVisits, VISIT_BATCH, type SessionState } from './session.js';

export type { StepContext };

/**
 * A shallow copy of the session for one step. The state is bounded (its history lives in events), so
 * copying the top level is cheap; nested records are replaced, never changed in place, by the code below
 * (a policy that changes its own state in place copies it in its `draft`).
 */
export function draft(def: MachineDefinition, session: SessionState): SessionState {
  const s = { ...session };
  def.policy.draft?.(s);
  return s;
}

/** Queues an event for the bus. */
export function emit(ctx: StepContext, e: EngineEvent): void {
  ctx.fx.push({ type: 'emit', event: e });
}

/** Display name of an agent id (or "the user"). */
export function nameOf(ctx: StepContext, id: string): string {
  if (id === 'user') return 'the user';
  return agentById(ctx.def, id)?.name ?? id;
}

/** State key of an agent id, or the user state. */
export function pathOf(ctx: StepContext, id: string): string {
  if (id === 'user') return ctx.def.userPath;
  return agentById(ctx.def, id)?.path ?? id;
}

/** The state the session is in now (its main region's active leaf). */
export function currentPath(ctx: StepContext): string {
  return ctx.s.configuration[0] ?? ctx.def.userPath;
}

/** Records a visible system note. */
export function note(ctx: StepContext, text: string): void {
  emit(ctx, event('note', { text }));
}

/** Counts a turn an agent really took in its state (a failed or aborted attempt is not a visit). */
export function countVisit(ctx: StepContext, path: string): void {
  const recent = [...(ctx.s.recentVisits ?? []), path];
  // Copying the whole record every turn cost more than the rest of a step at 200 states: fold in batches.
  if (recent.length < VISIT_BATCH) {
    ctx.s.recentVisits = recent;
    return;
  }
  ctx.s.visits = allVisits({ visits: ctx.s.visits, recentVisits: recent });
  ctx.s.recentVisits = [];
}

/** Starts an agent call: the runtime will call the model and report back. */
export function startCall(ctx: StepContext, persona: string, inbox: Inbox, extra: Partial<Pick<AgentCall, 'attempt' | 'repair' | 'priorText' | 'path'>> = {}): void {
  const { s } = ctx;
  s.callSeq += 1;
  const call: AgentCall = { turnId: `t${s.callSeq}`, persona, path: pathOf(ctx, persona), attempt: 1, inbox, ...extra };
  s.inFlight = call;
  s.active = persona;
  s.status = 'running';
  s.awaiting = null;
  ctx.fx.push({ type: 'call_agent', call });
}

/** Aborts the call in flight: it is recorded as aborted (never half applied). */
export function abortInFlight(ctx: StepContext, reason: string): void {
  const call = ctx.s.inFlight;
  if (!call) return;
  ctx.s.inFlight = null;
  ctx.fx.push({ type: 'abort_call', turnId: call.turnId, reason });
  emit(ctx, event('agent_aborted', { turn_id: call.turnId, persona: call.persona, reason }));
}

/**
 * Moves the main region to the state `to` (a key): the chart says which states are left and entered;
 * the transition, the majors left and entered, and the entered leaf are published in that order.
 */
export function changeState(ctx: StepContext, to: string, kind: Move['kind'], reason: string, arbitration?: string, fromKey?: string): void {
  const { s, def } = ctx;
  const chart = def.chart;
  // A parallel region moves from its own leaf; everything else from the main region's.
  const from = fromKey ?? currentPath(ctx);
  const source = nodeByKey(chart, from);
  const target = nodeByKey(chart, to);
  if (!source || !target) return noState(def, source ? to : from);
  const sets = transitionSets(chart, s.configuration.length > 0 || from === '' ? s.configuration : [from], source.path, target.path);
  const turn = s.turn;
  emit(ctx, event('transition', { from, to, reason, kind }));
  const toTop = topLevelOf(target);
  if (topLevelOf(source) !== toTop) majorsCrossed(ctx, sets);
  s.configuration = sets.configuration.slice();
  const persona = target.invoke?.agent ?? (target.waitsForUser ? 'user' : target.id);
  emit(ctx, event('state_entered', { path: to, persona, major: toTop.id }));
  // Only a policy that keeps transitions is given their record (a workflow's moves make none).
  if (def.policy.onTransition) def.policy.onTransition(ctx, { turn, from, to, kind, reason, ...(arbitration ? { arbitration } : {}) });
}

// Out of line: a state that is not in the chart is a defect of the caller, and most moves stay under one major.
function noState(def: MachineDefinition, key: string): never {
  throw new Error(`engine: no state ${key} in ${def.name}`);
}

/** The states directly under the root that hold others (a team's majors, a workflow's sub-workflows) left and entered. */
function majorsCrossed(ctx: StepContext, sets: TransitionSets): void {
  for (const n of sets.exited) if (n.depth === 1 && n.children.length > 0) emit(ctx, event('major_exited', { major: n.id }));
  for (const n of sets.entered) if (n.depth === 1 && n.children.length > 0) emit(ctx, event('major_entered', { major: n.id }));
}

/** Enters an agent's state and starts its turn with the given inbox. */
export function goTo(ctx: StepContext, persona: string, kind: Move['kind'], reason: string, inbox: Inbox, arbitration?: string): void {
  changeState(ctx, pathOf(ctx, persona), kind, reason, arbitration);
  startCall(ctx, persona, inbox);
}

/** Pauses the session for the user where it is (the state does not change). */
export function awaitUser(ctx: StepContext, code: Awaiting['code'], reason: string, resume: Awaiting['resume'] = null): void {
  const { s } = ctx;
  s.inFlight = null;
  s.status = 'awaiting_user';
  s.awaiting = { code, reason, resume };
  s.pending = null;
  emit(ctx, event('awaiting_user', { reason, code }));
  ctx.fx.push({ type: 'await_user', reason });
}

/** Sends the session to the user state and pauses it there. */
export function toUser(
  ctx: StepContext,
  code: Awaiting['code'],
  reason: string,
  resume: Awaiting['resume'] = null,
  pending?: Move,
  /** The agent whose work the pause is about, when it is not the one leaving now. */
  owner?: string | null,
): void {
  const { s } = ctx;
  const from = currentPath(ctx);
  if (owner !== undefined) s.active = owner;
  s.inFlight = null;
  if (from !== ctx.def.userPath) changeState(ctx, ctx.def.userPath, 'system', reason);
  s.status = 'awaiting_user';
  s.awaiting = { code, reason, resume };
  s.pending = pending ?? null;
  const shownPending = pending && pending.to !== 'user' ? { from: pathOf(ctx, s.active ?? 'user'), to: pathOf(ctx, pending.to), reason: pending.reason } : undefined;
  emit(ctx, event('awaiting_user', shownPending ? { reason, code, pending: shownPending } : { reason, code }));
  ctx.fx.push({ type: 'await_user', reason });
}

/** Ends the session with a stated reason (and a workflow's output); the one place `session_ended` is published. */
export function endSession(ctx: StepContext, reason: string, output?: unknown): void {
  abortInFlight(ctx, 'session ended');
  ctx.s.status = 'ended';
  ctx.s.endReason = reason;
  ctx.s.pending = null;
  emit(ctx, event('session_ended', output === undefined ? { reason } : { reason, output }));
  ctx.fx.push({ type: 'end', reason });
}
