import type { StepContext } from '../../engine/context.js';
import type { Evaluation } from '../../engine/evaluation.js';
import { planOf, scopeOf, stateOf } from './frames.js';
import type { WorkflowPlan } from './plan.js';
import type { Frame, WorkflowRun } from './state.js';
import { answerInline, takeId } from './inline.js';
import type { Chain } from './chain.js';
import { settle } from './evaluated.js';

/** The session's workflow run (the policy only runs on workflow definitions). */
export function runOf(ctx: StepContext): WorkflowRun {
  const run = ctx.s.workflow;
  if (!run) throw new Error(`engine: ${ctx.def.name} has no workflow run`);
  return run;
}

/** Whether the workflow was stored (with its session) before contexts followed seed 000's trimming: it folds as it ran. */
export function legacyRun(ctx: StepContext): boolean {
  return rootPlan(ctx).seedContexts !== true;
}

/** The workflow plan of the definition. */
export function rootPlan(ctx: StepContext): WorkflowPlan {
  const plan = ctx.def.workflow;
  if (!plan) throw new Error(`engine: ${ctx.def.name} is not a workflow`);
  return plan;
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
  ctx.s.workflow = { ...run, frames: [...run.frames.slice(0, -1), frame] };
}

/** Changes fields of the top frame. */
export function update(ctx: StepContext, change: Partial<Frame>): Frame {
  const next = { ...current(ctx).frame, ...change };
  setFrame(ctx, next);
  return next;
}

/**
 * Asks the runtime to run code in the sandbox; `evaluated` comes back with this id. What needs no code
 * (and what the sandbox already ran in the job of the evaluation before) is answered in this step.
 * `chain`: what the engine will ask for next when this succeeds, run in the same job where it needs code.
 */
export function evaluate(ctx: StepContext, purpose: Evaluation['purpose'], what: Pick<Evaluation, 'code' | 'transitions' | 'fields'>, extra: Partial<Evaluation['scope']> = {}, chain?: Chain): void {
  const inline = answerInline(ctx, purpose, what, extra);
  if (inline) return settle(ctx, takeId(ctx), purpose, inline.result, null, inline.chain);
  const { run, frame, plan } = current(ctx);
  const id = `e${run.evalSeq + 1}`;
  const evaluation: Evaluation = { workflow: plan.name, state: frame.state, purpose, ...what, ...chain, scope: { ...scopeOf(frame, plan, legacyRun(ctx)), ...extra } };
  ctx.s.workflow = { ...runOf(ctx), evalSeq: run.evalSeq + 1, evaluating: { id, purpose, evaluation } };
  ctx.s.status = 'running';
  ctx.fx.push({ type: 'evaluate', id, evaluation });
}

/** A fresh call id (as startCall numbers them), for calls that run beside the main one (branches). */
export function nextTurnId(ctx: StepContext): string {
  ctx.s.callSeq += 1;
  return `t${ctx.s.callSeq}`;
}
