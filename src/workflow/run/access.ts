import type { StepContext } from '../../engine/context.js';
import { planOf, stateOf } from './frames.js';
import type { WorkflowPlan } from './plan.js';
import type { Frame, WorkflowRun } from './state.js';

/** The session's workflow run (the policy only runs on workflow definitions). */
export function runOf(ctx: StepContext): WorkflowRun {
  const run = ctx.s.workflow;
  return run ? run : noRun(ctx);
}

// The throws of runOf and rootPlan stay out of them: V8 inlines those into most of a state's functions, and their
// messages' code was compiled into each (what it inlines, not what it runs, is most of TurboFan's time in runs 6-9).
function noRun(ctx: StepContext): never {
  throw new Error(`engine: ${ctx.def.name} has no workflow run`);
}

function notWorkflow(ctx: StepContext): never {
  throw new Error(`engine: ${ctx.def.name} is not a workflow`);
}

/** Whether the workflow was stored (with its session) before contexts followed seed 000's trimming: it folds as it ran. */
export function legacyRun(ctx: StepContext): boolean {
  return rootPlan(ctx).seedContexts !== true;
}

/** The workflow plan of the definition. */
export function rootPlan(ctx: StepContext): WorkflowPlan {
  const plan = ctx.def.workflow;
  return plan ? plan : notWorkflow(ctx);
}

/** The running workflow on top (the innermost sub-workflow), its plan and its current state. */
export function current(ctx: StepContext) {
  const run = runOf(ctx);
  const frame = run.frames[run.frames.length - 1]!;
  const plan = planOf(rootPlan(ctx), frame);
  return { run, frame, plan, state: stateOf(plan, frame.state) };
}

/** Replaces the top frame (copied on write: a step never changes its input). */
export function setFrame(ctx: StepContext, frame: Frame): void {
  const run = runOf(ctx);
  const frames = run.frames.length === 1 ? [frame] : [...run.frames.slice(0, -1), frame];
  ctx.s.workflow = { ...run, frames };
}

/** Changes fields of the top frame. */
export function update(ctx: StepContext, change: Partial<Frame>): Frame {
  const next = { ...current(ctx).frame, ...change };
  setFrame(ctx, next);
  return next;
}

/** A fresh call id (as startCall numbers them), for calls that run beside the main one (branches). */
export function nextTurnId(ctx: StepContext): string {
  ctx.s.callSeq += 1;
  return `t${ctx.s.callSeq}`;
}
