import { arbitrate } from '../arbiter/arbitrate.js';
import { resolvePersona } from '../arbiter/resolve.js';
import { agentById } from '../engine/definition.js';
import { abortInFlight, emit, endSession, nameOf, note, startCall, toUser, type StepContext } from '../engine/context.js';
import { event } from '../engine/event-map.js';
import type { AgentCall, Move } from '../engine/moves.js';
import type { Mode } from '../engine/session.js';
import { countApproval } from './agent-turn.js';
import { applyMove, remember, resetLoopTrail, routingOf } from './moves.js';
import { teamMajorIds, teamOf } from './team-settings.js';

/** Starts the session on the brief at the initial state (or the first pipeline stage). */
export function start(ctx: StepContext, brief: string): void {
  const { s, def } = ctx;
  remember(ctx, brief);
  emit(ctx, event('user_input', { text: brief, kind: 'brief' }));
  const routing = teamOf(def).routing[s.mode];
  const first = routing.kind === 'pipeline' ? routing.stages[0]!.persona : def.initial;
  routingOf(ctx).pipelineIndex = 0;
  applyMove(ctx, { to: first, kind: 'system', reason: 'brief received', inbox: { kind: 'brief', text: brief } });
}

/** Steering needs a session: before the brief (or after the end) it only says so. */
function notStarted(ctx: StepContext): boolean {
  if (ctx.s.status === 'idle') {
    note(ctx, 'type a brief first: the team has nothing to work on yet');
    return true;
  }
  if (ctx.s.status === 'ended') {
    note(ctx, 'the session has ended');
    return true;
  }
  return false;
}

/** The persona `target` names, once the session has started (null, with a note saying why, otherwise). */
function startedAndNamed(ctx: StepContext, target: string) {
  if (notStarted(ctx)) return null;
  const persona = resolvePersona(ctx.def.agents, target);
  if (!persona) note(ctx, `unknown persona "${target}"; known: ${ctx.def.agents.map((a) => a.id).join(', ')}`);
  return persona ?? null;
}

function userMove(ctx: StepContext, move: Move): void {
  abortInFlight(ctx, 'interrupted by the user');
  ctx.s.pending = null;
  resetLoopTrail(ctx);
  applyMove(ctx, move);
}

/** `!handoff X` (or the command `via` that asked for it): the arbiter is bypassed; the target gets the full context flagged as user-requested. */
export function handoff(ctx: StepContext, target: string, via = '!handoff'): void {
  const { s, def } = ctx;
  const persona = startedAndNamed(ctx, target);
  if (!persona) return;
  const from = s.active ?? def.initial;
  const { arbiter } = teamOf(def);
  const decision = arbitrate({
    from,
    proposals: [{ target: persona.id, source: 'user', criteria: { urgency: 1, dependency: 1, user_intent: 1 }, reason: via, proposer: 'user' }],
    roster: def.agents,
    weights: arbiter.weights,
    blockingDependency: arbiter.blockingDependency,
  });
  const r = routingOf(ctx);
  r.lastDecision = decision;
  emit(ctx, event('arbitration', { from: agentById(def, from)?.path ?? def.userPath, decision }));
  r.detours = [];
  r.consultReturn = null;
  userMove(ctx, {
    to: persona.id,
    kind: 'user',
    reason: `user-requested transition (${via})`,
    pushHistory: true,
    inbox: { kind: 'user_requested', text: 'Give your view on the work so far and decide where it goes next.' },
  });
}

/** `!switch_to MAJOR`: hands control to the major's lead. */
export function switchMajor(ctx: StepContext, majorId: string): void {
  const major = teamOf(ctx.def).majors.find((m) => m.id.toLowerCase() === majorId.toLowerCase() && m.kind === 'team');
  if (!major?.lead) {
    const majors = teamMajorIds(ctx.def).join(', ');
    note(ctx, `unknown major "${majorId}"; known: ${majors}`);
    return;
  }
  handoff(ctx, major.lead, `!switch_to ${major.id}`);
}

/** `!rework [reason]`: sends the current work back to its author with the reason. */
export function rework(ctx: StepContext, reason: string): void {
  const { s } = ctx;
  if (s.status === 'idle' || s.status === 'ended') {
    note(ctx, 'there is no work to send back yet');
    return;
  }
  const r = routingOf(ctx);
  const inFlight = s.inFlight;
  const author = inFlight ? (r.history[r.history.length - 1] ?? inFlight.persona) : s.active;
  if (!author) {
    note(ctx, 'there is no work to send back yet');
    return;
  }
  const why = reason.trim() || 'the user asked for rework';
  countApproval(ctx, 'user', author, 'REQUEST_REWORK', why);
  userMove(ctx, {
    to: author,
    kind: 'user',
    reason: `user requested rework: ${why}`,
    popHistory: true,
    inbox: { kind: 'rework', from: 'user', reason: why, byUser: true },
  });
}

/** `!call_agent X [message]`: consults a persona; control returns afterwards. */
export function callAgent(ctx: StepContext, target: string, message: string): void {
  const { s } = ctx;
  const persona = startedAndNamed(ctx, target);
  if (!persona) return;
  const back = s.status === 'running' && s.active ? s.active : 'user';
  if (back === persona.id) {
    note(ctx, `${persona.name} already has the turn`);
    return;
  }
  const r = routingOf(ctx);
  r.consultReturn = back;
  // Consulting while the team waits must not lose what the pause holds (a gate, a held call).
  r.consultPause = back === 'user' && s.awaiting ? { awaiting: s.awaiting, pending: s.pending, active: s.active } : null;
  const text = message.trim() || 'The user would like your view on the work so far.';
  userMove(ctx, { to: persona.id, kind: 'consult', reason: `user consults ${persona.name}`, inbox: { kind: 'consult', from: 'user', text } });
}

function isCall(resume: Move | AgentCall): resume is AgentCall {
  return 'turnId' in resume;
}

/** `!continue`: resumes whatever the pause held back, lifting the limit that caused it (`command`: the line that asked, for the transition's reason). */
export function resume(ctx: StepContext, command: '!continue' | '!approve' = '!continue'): void {
  const { s, def } = ctx;
  if (s.status === 'running') {
    note(ctx, 'the team is already working');
    return;
  }
  if (s.status !== 'awaiting_user' || !s.awaiting) {
    note(ctx, s.status === 'ended' ? 'the session has ended' : 'type a brief to start');
    return;
  }
  const { resume: held, code } = s.awaiting;
  if (code === 'limit') {
    if (s.turn >= s.turnBudget) s.turnBudget = s.turn + def.limits.max_turns;
    routingOf(ctx).reworks = {};
    resetLoopTrail(ctx);
  }
  if (held && isCall(held)) {
    applyMove(ctx, { to: held.persona, kind: 'system', reason: 'retry after failure', inbox: held.inbox });
    return;
  }
  if (held) {
    applyMove(ctx, held);
    return;
  }
  const persona = s.active ?? def.initial;
  applyMove(ctx, { to: persona, kind: 'user', reason: `user: ${command}`, inbox: { kind: 'continue', text: 'The user says: continue as you see best.' } });
}

/** `!approve`: takes the transition held at a gate, ends a completed session, or continues. */
export function approve(ctx: StepContext): void {
  const { s } = ctx;
  if (s.status !== 'awaiting_user' || !s.awaiting) {
    note(ctx, 'nothing is waiting for approval');
    return;
  }
  const of = s.active ?? 'brief';
  if (s.awaiting.code === 'failure') {
    // A failed turn left no work behind: recording an approval of it would say something that did not happen.
    note(ctx, `nothing to approve: ${nameOf(ctx, of)}'s turn failed; !approve retries it, as !continue does`);
    resume(ctx);
    return;
  }
  countApproval(ctx, 'user', of, 'APPROVED');
  if (s.awaiting.code === 'complete') {
    endSession(ctx, `completed: ${nameOf(ctx, of)}'s result approved by the user`);
    return;
  }
  resume(ctx, '!approve');
}

/** Plain text: a reply to a waiting persona, or an interjection the active persona answers next. */
export function userMessage(ctx: StepContext, text: string): void {
  const { s, def } = ctx;
  if (s.status === 'ended') {
    note(ctx, 'the session has ended');
    return;
  }
  const kind = s.status === 'awaiting_user' ? 'reply' : 'interjection';
  if (s.status === 'running') abortInFlight(ctx, 'user interjected');
  remember(ctx, text);
  emit(ctx, event('user_input', { text, kind }));
  const persona = s.active ?? def.initial;
  if (s.turn >= s.turnBudget) {
    // Replying at the turn limit is asking for more turns: say so rather than run past the limit unseen.
    s.turnBudget = s.turn + def.limits.max_turns;
    note(ctx, `turn limit raised to ${s.turnBudget} by your reply`);
  }
  if (s.status === 'awaiting_user') {
    resetLoopTrail(ctx);
    applyMove(ctx, { to: persona, kind: 'user', reason: 'user replied', inbox: { kind: 'user_reply', text } });
    return;
  }
  startCall(ctx, persona, { kind: 'interjection', text });
}

/** `!simple` / `!fsm`: switches the routing; history and approvals are kept. */
export function switchMode(ctx: StepContext, mode: Mode): void {
  const { s, def } = ctx;
  if (s.mode === mode) {
    note(ctx, `already in ${mode} mode`);
    return;
  }
  s.mode = mode;
  const routing = teamOf(def).routing[mode];
  if (routing.kind === 'pipeline') {
    const at = routing.stages.findIndex((st) => st.persona === s.active);
    routingOf(ctx).pipelineIndex = at >= 0 ? at : -1;
  }
  emit(ctx, event('mode_changed', { mode }));
}

/** `!quit`: ends the session; nothing recorded is lost. */
export function quit(ctx: StepContext): void {
  endSession(ctx, 'user quit');
}

/** A token or cost budget ran out (detected by the runtime). */
export function budgetExceeded(ctx: StepContext, reason: string, turnId?: string): void {
  if (ctx.s.status === 'ended') return;
  // A stale report (its call was replaced meanwhile) must not stop the turn that runs now.
  if (turnId !== undefined && ctx.s.inFlight?.turnId !== turnId) return;
  // The aborted call is held so `!continue` re-runs it with its inbox: nothing is lost.
  const held = ctx.s.inFlight;
  abortInFlight(ctx, reason);
  toUser(ctx, 'limit', reason, held);
}
