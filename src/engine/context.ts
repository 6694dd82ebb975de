import type { MachineDefinition } from './definition.js';
import { agentById } from './definition.js';
import type { Effect } from './effects.js';
import { event, type EngineEvent } from './event-map.js';
import type { Inbox } from './inbox.js';
import type { AgentCall, Awaiting, Move, SessionState, TranscriptEntry } from './session.js';

/** The working set of one step: definition, a private draft of the session, effects produced. */
export interface StepContext {
  def: MachineDefinition;
  s: SessionState;
  fx: Effect[];
}

/** Copies the session so a step can change it without touching the caller's value. */
export function draft(session: SessionState): SessionState {
  return {
    ...session,
    history: [...session.history],
    detours: [...session.detours],
    approvals: [...session.approvals],
    reworks: { ...session.reworks },
    visits: { ...session.visits },
    transitions: [...session.transitions],
    transcript: [...session.transcript],
    queue: [...session.queue],
    rulesFired: { ...session.rulesFired },
  };
}

/** Queues an event for the bus. */
export function emit(ctx: StepContext, e: EngineEvent): void {
  ctx.fx.push({ type: 'emit', event: e });
}

/** Display name of a persona id (or "the user"). */
export function nameOf(ctx: StepContext, id: string | 'user'): string {
  if (id === 'user') return 'the user';
  return agentById(ctx.def, id)?.name ?? id;
}

/** State path of a persona id, or the user state. */
export function pathOf(ctx: StepContext, id: string | 'user'): string {
  if (id === 'user') return ctx.def.userPath;
  return agentById(ctx.def, id)?.path ?? id;
}

/** The state the session is in now. */
export function currentPath(ctx: StepContext): string {
  const { s } = ctx;
  if (s.status === 'awaiting_user' || s.status === 'idle' || !s.active) return ctx.def.userPath;
  return pathOf(ctx, s.active);
}

/** Appends to the transcript. */
export function record(ctx: StepContext, entry: Omit<TranscriptEntry, 'seq' | 'turn'>): void {
  ctx.s.seq += 1;
  ctx.s.transcript.push({ seq: ctx.s.seq, turn: ctx.s.turn, ...entry });
}

/** Records a visible system note. */
export function note(ctx: StepContext, text: string): void {
  record(ctx, { kind: 'note', text });
  emit(ctx, event('note', { text }));
}

/** Starts a persona call: the runtime will call the model and report back. */
export function startCall(
  ctx: StepContext,
  persona: string,
  inbox: Inbox,
  extra: Partial<Pick<AgentCall, 'attempt' | 'repair' | 'priorText'>> = {},
): void {
  const { s } = ctx;
  s.callSeq += 1;
  const call: AgentCall = { turnId: `t${s.callSeq}`, persona, path: pathOf(ctx, persona), attempt: 1, inbox, ...extra };
  s.inFlight = call;
  s.active = persona;
  s.status = 'running';
  s.awaiting = null;
  ctx.fx.push({ type: 'call_agent', call });
}

/** Aborts the call in flight, recording the turn as aborted (never half applied). */
export function abortInFlight(ctx: StepContext, reason: string): void {
  const call = ctx.s.inFlight;
  if (!call) return;
  ctx.s.inFlight = null;
  ctx.fx.push({ type: 'abort_call', turnId: call.turnId, reason });
  record(ctx, { kind: 'agent', persona: call.persona, path: call.path, text: '', status: 'aborted', flags: [reason] });
  emit(ctx, event('agent_aborted', { turn_id: call.turnId, persona: call.persona, reason }));
}

function changeState(ctx: StepContext, from: string, to: string, kind: Move['kind'], reason: string, arbitration?: string): void {
  const fromMajor = from.split('.')[0]!;
  const toMajor = to.split('.')[0]!;
  ctx.s.transitions.push({ turn: ctx.s.turn, from, to, kind, reason, ...(arbitration ? { arbitration } : {}) });
  emit(ctx, event('transition', { from, to, reason, kind }));
  if (fromMajor !== toMajor) {
    emit(ctx, event('major_exited', { major: fromMajor }));
    emit(ctx, event('major_entered', { major: toMajor }));
  }
  ctx.s.visits[to] = (ctx.s.visits[to] ?? 0) + 1;
  emit(ctx, event('state_entered', { path: to, persona: to === ctx.def.userPath ? 'user' : to.split('.')[1]!, major: toMajor }));
}

/** Sends the session to the user state and pauses it there. */
export function toUser(
  ctx: StepContext,
  code: Awaiting['code'],
  reason: string,
  resume: Awaiting['resume'] = null,
  pending?: Move,
  /** The persona whose work the pause is about, when it is not the one leaving now. */
  owner?: string | null,
): void {
  const { s } = ctx;
  const from = currentPath(ctx);
  if (owner !== undefined) s.active = owner;
  s.inFlight = null;
  if (from !== ctx.def.userPath) changeState(ctx, from, ctx.def.userPath, 'system', reason);
  s.status = 'awaiting_user';
  s.awaiting = { code, reason, resume };
  s.pending = pending ?? null;
  const shownPending = pending && pending.to !== 'user'
    ? { from: pathOf(ctx, s.active ?? 'user'), to: pathOf(ctx, pending.to), reason: pending.reason }
    : undefined;
  emit(ctx, event('awaiting_user', shownPending ? { reason, code, pending: shownPending } : { reason, code }));
  ctx.fx.push({ type: 'await_user', reason });
}

/** Applies a move to a persona: history, detours, state events, then the next call. */
export function applyMove(ctx: StepContext, move: Move): void {
  const { s } = ctx;
  if (move.to === 'user') {
    toUser(ctx, 'respond_to_user', move.reason);
    return;
  }
  const from = currentPath(ctx);
  const leaving = s.active;
  if (move.popHistory && s.history[s.history.length - 1] === move.to) s.history.pop();
  if (move.pushHistory && leaving && leaving !== move.to) s.history.push(leaving);
  if (move.endDetour) s.detours.pop();
  if (move.detour) s.detours.push(move.detour);
  if (move.pipelineIndex !== undefined) s.pipelineIndex = move.pipelineIndex;
  s.pending = null;
  changeState(ctx, from, pathOf(ctx, move.to), move.kind, move.reason, move.arbitration);
  startCall(ctx, move.to, move.inbox ?? { kind: 'continue', text: 'Continue.' });
}

/** Ends the session with a stated reason. */
export function endSession(ctx: StepContext, reason: string): void {
  abortInFlight(ctx, 'session ended');
  ctx.s.status = 'ended';
  ctx.s.endReason = reason;
  ctx.s.pending = null;
  emit(ctx, event('session_ended', { reason }));
  ctx.fx.push({ type: 'end', reason });
}
