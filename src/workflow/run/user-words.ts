import type { StepContext } from '../../engine/context.js';
import { current, runOf } from './access.js';
import { stateOf } from './frames.js';

// Words the user typed while branches or debaters worked: they wait in the run for the resume state or the next agent's turn.

/** True when the running workflow has a `resume` state that exists (seed 003): unsolicited input goes there. */
export function hasResume(ctx: StepContext): boolean {
  const { plan } = current(ctx);
  return plan.resume !== null && stateOf(plan, plan.resume) !== undefined;
}

/** The user's words waiting for the next agent's turn (typed during a fan-out or a debate, with no resume state), taken once. */
export function takeUserWords(ctx: StepContext): { user: string } | Record<string, never> {
  const run = runOf(ctx);
  if (run.deferredInput === undefined || hasResume(ctx)) return {};
  const { deferredInput: words, ...rest } = run;
  ctx.s.workflow = rest;
  return { user: words };
}
