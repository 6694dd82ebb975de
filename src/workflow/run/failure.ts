import { awaitUser, changeState, emit, endSession, note, type StepContext } from '../../engine/context.js';
import { event } from '../../engine/event-map.js';
import { current, evaluate, runOf, update } from './access.js';
import { keyOf, stateOf } from './frames.js';
import type { Frame } from './state.js';
import type { Code } from './plan.js';
import { SUB_DONE } from './constants.js';
import { advance, goTo } from './flow.js';

// What a failed state does: retries, its error handler (a state or a handler deciding), stopping the workflow failed.

/** Most times an error handler may send a state round again ("retry"), so a handler cannot loop forever. */
export const MAX_HANDLER_RETRIES = 10;

/** Where a failed state goes once its retries are spent: its own error_handler, else the workflow's. */
export function errorRoute(ctx: StepContext): { state: string } | { code: Code } | null {
  const { plan, state } = current(ctx);
  if (state?.onError) return state.onError;
  if (plan.errorDecider) return { code: plan.errorDecider };
  return plan.errorHandler ? { state: plan.errorHandler } : null;
}

/**
 * A state failed (its code threw, its model call failed for good): tried again up to its max_retries,
 * then its error handler decides (a state to go to with common_data.error set, or a handler naming a
 * state, "retry" or "stop"), else the session pauses with the reason.
 */
export function fail(ctx: StepContext, reason: string): void {
  const run = runOf(ctx);
  if (run.frames.length === 0) return;
  const { frame, plan, state } = current(ctx);
  ctx.s.workflow = { ...runOf(ctx), evaluating: null };
  if (state && frame.retries < state.maxRetries) {
    const retries = frame.retries + 1;
    note(ctx, `${plan.name}: state ${frame.state} failed (${reason}); trying again (${retries}/${state.maxRetries})`);
    update(ctx, { retries, phase: retryPhase(frame.phase) });
    advance(ctx);
    return;
  }
  emit(ctx, event('error', { message: reason, where: `${plan.name}.${frame.state}` }));
  const route = errorRoute(ctx);
  const error = { state: frame.state, message: reason };
  if (route && 'state' in route && route.state !== frame.state && stateOf(plan, route.state)) {
    update(ctx, { common_data: { ...frame.common_data, error } });
    goTo(ctx, route.state, `error in ${frame.state}: ${reason}`);
    return;
  }
  if (route && 'code' in route) {
    update(ctx, { common_data: { ...frame.common_data, error } });
    evaluate(ctx, 'error', { code: route.code }, { last_error: error });
    return;
  }
  awaitUser(ctx, 'failure', `${plan.name}: state ${frame.state} failed: ${reason}; !continue tries it again`);
}

/** An error handler decided: go round again, stop the workflow failed, or go to the state it names. */
export function onErrorDecided(ctx: StepContext, decision: string, reason: string): void {
  const { frame, plan } = current(ctx);
  if (decision === 'retry' && frame.retries < MAX_HANDLER_RETRIES) {
    note(ctx, `${plan.name}: the error handler retries ${frame.state} (${frame.retries + 1}/${MAX_HANDLER_RETRIES})`);
    update(ctx, { retries: frame.retries + 1, phase: retryPhase(frame.phase) });
    return advance(ctx);
  }
  if (decision === 'stop') return stopFailed(ctx, `${plan.name} stopped by its error handler after ${frame.state} failed: ${reason}`);
  if (decision !== 'retry' && stateOf(plan, decision)) return goTo(ctx, decision, `error handler: ${frame.state} failed, go to ${decision}`);
  const why = decision === 'retry' ? `it asked to retry more than ${MAX_HANDLER_RETRIES} times` : `it returned ${JSON.stringify(decision)}, which is not a state, "retry" or "stop"`;
  awaitUser(ctx, 'failure', `${plan.name}: state ${frame.state} failed (${reason}) and its error handler did not help: ${why}; !continue tries the state again`);
}

/** The running workflow stops on an error: a sub-workflow's failure fails its parent's state; the root ends the session, failed. */
export function stopFailed(ctx: StepContext, reason: string): void {
  const run = runOf(ctx);
  const { frame, plan } = current(ctx);
  if (run.frames.length > 1) {
    ctx.s.workflow = { ...run, frames: run.frames.slice(0, -1) };
    changeState(ctx, keyOf(frame, SUB_DONE), 'workflow', `sub-workflow ${plan.name} failed`);
    return fail(ctx, reason);
  }
  const output = frame.common_data[plan.output.name] ?? { error: reason };
  ctx.s.workflow = { ...run, output, error: reason, evaluating: null };
  endSession(ctx, reason, output);
}

/** Where a failed state starts again: the call is made again; branches and debates start over. */
export function retryPhase(phase: Frame['phase']): Frame['phase'] {
  if (phase === 'call') return 'act';
  if (phase === 'fanout' || phase === 'debate') return 'input';
  return phase;
}
