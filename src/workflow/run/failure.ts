import type { StepContext } from '../../engine/context.js';
import { current } from './access.js';
import type { Frame } from './state.js';
import type { Code } from './plan.js';

// Where a failed state goes: its error route, how far an error handler may retry it, the phase it starts again from.
// (Failing itself, fail() in flow.ts, moves the run, so it lives with the moves.)

/** Most times an error handler may send a state round again ("retry"), so a handler cannot loop forever. */
export const MAX_HANDLER_RETRIES = 10;

/** Where a failed state goes once its retries are spent: its own error_handler, else the workflow's. */
export function errorRoute(ctx: StepContext): { state: string } | { code: Code } | null {
  const { plan, state } = current(ctx);
  if (state?.onError) return state.onError;
  if (plan.errorDecider) return { code: plan.errorDecider };
  return plan.errorHandler ? { state: plan.errorHandler } : null;
}

/** Where a failed state starts again: the call is made again; branches and debates start over. */
export function retryPhase(phase: Frame['phase']): Frame['phase'] {
  if (phase === 'call') return 'act';
  if (phase === 'fanout' || phase === 'debate') return 'input';
  return phase;
}
