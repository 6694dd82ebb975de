import { changeState, pathOf, startCall, toUser, type StepContext } from '../engine/context.js';
import type { Move, TransitionRecord } from '../engine/moves.js';
import { nextLoop } from './loops.js';
import { HISTORY_LIMIT, type TeamRouting } from './state.js';
import { teamOf } from './team-settings.js';

/** The team routing state of the step's draft (the policy only runs on team definitions). */
export function routingOf(ctx: StepContext): TeamRouting {
  const r = ctx.s.routing;
  if (!r) throw new Error(`engine: ${ctx.def.name} has no team routing state`);
  return r;
}

/** Remembers a line of the conversation for trigger rules (only as many as they read). */
export function remember(ctx: StepContext, text: string): void {
  if (text === '') return;
  const r = routingOf(ctx);
  r.recentTexts = [...r.recentTexts, text].slice(-teamOf(ctx.def).arbiter.triggerWindow);
}

/** Forgets the alternation: moves before now no longer count towards ping-pong detection. */
export function resetLoopTrail(ctx: StepContext): void {
  routingOf(ctx).loop = null;
}

/** Follows persona-to-persona moves for the loop detector (moves into the user state do not break a run). */
export function trackTransition(ctx: StepContext, record: TransitionRecord): void {
  if (record.kind === 'system') return;
  const r = routingOf(ctx);
  r.loop = nextLoop(r.loop, record);
}

/** Applies a move to a persona: handover stack, detours, pipeline stage, the state change, then the next call. */
export function applyMove(ctx: StepContext, move: Move): void {
  const { s } = ctx;
  if (move.to === 'user') {
    toUser(ctx, 'respond_to_user', move.reason);
    return;
  }
  const r = routingOf(ctx);
  const leaving = s.active;
  if (move.popHistory && r.history[r.history.length - 1] === move.to) r.history = r.history.slice(0, -1);
  if (move.pushHistory && leaving && leaving !== move.to) r.history = [...r.history, leaving].slice(-HISTORY_LIMIT);
  if (move.endDetour) r.detours = r.detours.slice(0, -1);
  if (move.detour) r.detours = [...r.detours, move.detour];
  if (move.pipelineIndex !== undefined) r.pipelineIndex = move.pipelineIndex;
  s.pending = null;
  changeState(ctx, pathOf(ctx, move.to), move.kind, move.reason, move.arbitration);
  startCall(ctx, move.to, move.inbox ?? { kind: 'continue', text: 'Continue.' });
}
