import { awaitUser, note, type StepContext } from '../../engine/context.js';
import type { Evaluation, EvaluationResult } from '../../engine/evaluation.js';
import { keepChained } from './inline.js';
import type { Chain } from './chain.js';
import { current, legacyRun, runOf, setFrame, update } from './access.js';
import { appendMessage, contextOf, trimMessages } from './frames.js';
import { appendEach } from './context-length.js';
import type { Frame, WorkflowMessage } from './state.js';
import type { WorkflowPlan } from './plan.js';
import { fanOut } from './fanout.js';
import { startDebate } from './debate.js';
import { textOf } from './constants.js';
import { advance, enterSub, fail, finish, goTo, onErrorDecided, settleJoin } from './flow.js';
import { sizeChecked } from './loop-guard.js';
import { packedMap } from '../../engine/packed.js';

// What the sandbox gave back: code's changes adopted, then the state goes on by what the code was for.

/** Takes what code changed: common_data, contexts (whole lists, or messages added to contexts it never read; trimmed to their max_length), and what it logged (as notes). */
export function adopt(ctx: StepContext, result: Extract<EvaluationResult, { ok: true }>): void {
  const { frame, plan } = current(ctx);
  // An answer that left common_data as it was carries the frame's own object (the host tier's): the frame stays.
  let next: Frame = result.common_data === frame.common_data ? frame : { ...frame, common_data: result.common_data };
  // What changes messages and what logs are out of line: most answers carry neither, and V8 compiles what a state runs.
  if (result.contexts !== undefined || result.appended !== undefined) next = withMessages(ctx, plan, frame, next, result);
  if (next !== frame) setFrame(ctx, next);
  if (result.logs !== undefined && result.logs.length > 0) noteLogs(ctx, plan, frame, result.logs);
}

// `next` with the messages code left in its contexts (frame: the frame it ran on).
function withMessages(ctx: StepContext, plan: WorkflowPlan, frame: Frame, next: Frame, result: Extract<EvaluationResult, { ok: true }>): Frame {
  const legacy = legacyRun(ctx);
  if (result.contexts !== undefined) next = withReplaced(plan, frame, next, result.contexts, legacy);
  // Messages added to contexts the code never read: appended one by one, each trimming the context when it passes
  // max_length, as addMessage does in the sandbox (and in SynthDev); the sandbox sends them alone, past the limit too.
  for (const [name, messages] of Object.entries(result.appended ?? {})) {
    const context = contextOf(plan, name);
    if (!context) continue;
    const added = packedMap(messages, fromCode);
    if (legacy) for (const m of added) next = appendMessage(next, context, m, true);
    else next = { ...next, contexts: { ...next.contexts, [name]: appendEach(next.contexts[name] ?? [], added, context.maxLength) } };
  }
  return next;
}

// Contexts whose messages code read and added to, as it left them (out of line: handlers that only add send `appended`).
function withReplaced(plan: WorkflowPlan, frame: Frame, next: Frame, contexts: NonNullable<Extract<EvaluationResult, { ok: true }>['contexts']>, legacy: boolean): Frame {
  for (const [name, messages] of Object.entries(contexts ?? {})) {
    const context = contextOf(plan, name);
    if (!context) continue;
    const before = frame.contexts[name] ?? [];
    if (legacy) {
      // A run stored before: code's new messages are appended, as it ran.
      for (const m of messages.slice(before.length)) next = appendMessage(next, context, { role: m.role, content: m.content, from: 'code' }, true);
      continue;
    }
    // The context becomes what code left (it added, or cleared, messages), trimmed to its max_length as the sandbox trims it.
    const kept = packedMap(messages, (m, i): WorkflowMessage => {
      const was = before[i];
      return was && was.role === m.role && was.content === m.content ? was : { role: m.role, content: m.content, from: 'code' };
    });
    next = { ...next, contexts: { ...next.contexts, [name]: trimMessages(kept, context.maxLength) } };
  }
  return next;
}

const fromCode = (m: { role: WorkflowMessage['role']; content: string }): WorkflowMessage => ({ role: m.role, content: m.content, from: 'code' });

// What code logged, as notes (at most MAX_LOG_NOTES, then how many more).
function noteLogs(ctx: StepContext, plan: WorkflowPlan, frame: Frame, logs: string[]): void {
  for (const line of logs.slice(0, MAX_LOG_NOTES)) note(ctx, `${plan.name}.${frame.state}: ${line}`);
  if (logs.length > MAX_LOG_NOTES) note(ctx, `${plan.name}.${frame.state}: ${logs.length - MAX_LOG_NOTES} more log line(s) not shown`);
}

// The sandbox also ran what comes next (the transitions after the after-code; the entry code of the state
// they chose): kept for when it is asked for.
function keepNext(ctx: StepContext, purpose: Evaluation['purpose'], result: Extract<EvaluationResult, { ok: true }>, chain: Chain): void {
  // A context whose messages code replaced is trimmed here: what comes next must see it as the engine keeps it
  // (messages only added, within max_length or past it, the sandbox showed the next part as they are kept; a stored run trims otherwise).
  if (result.contexts && Object.keys(result.contexts).length > 0) return;
  if (result.appended && Object.keys(result.appended).length > 0 && legacyRun(ctx)) return;
  if (chain.next) return keepChained(ctx, chain.next, result.next!);
  const { state } = current(ctx);
  const chosen =
    purpose === 'transitions' && typeof result.value === 'number' ? state?.transitions[result.value]?.target : purpose === 'decide' && typeof result.value === 'string' ? result.value : undefined;
  const step = chosen !== undefined ? chain.targets?.[chosen] : undefined;
  if (step) keepChained(ctx, step, result.next!, chosen);
}

/** Console lines of one evaluation shown as notes (the sandbox caps what it collects; this caps what is shown). */
const MAX_LOG_NOTES = 5;

/** The sandbox answered an evaluation: its data counted (what it chained too) and size-checked, then it takes effect. */
export function onEvaluated(ctx: StepContext, id: string, answer: EvaluationResult): void {
  const run = runOf(ctx);
  if (!run.evaluating || run.evaluating.id !== id) return;
  const { evaluation } = run.evaluating;
  ctx.s.workflow = { ...run, evaluating: null };
  settle(ctx, id, evaluation.purpose, sizeChecked(ctx, answer), evaluation, evaluation);
}

/**
 * An evaluation's result (from the sandbox, or answered in the step: then `evaluation` is null) takes
 * effect: its changes adopted, the state goes on by what it was for. `chain`: what was to follow it; the
 * sandbox's result for that, if it ran it, is kept for the engine's next evaluation in this step.
 */
export function settle(ctx: StepContext, _id: string, purpose: Evaluation['purpose'], result: EvaluationResult, evaluation: Evaluation | null, chain: Chain | null): void {
  if (purpose === 'error') return settleError(ctx, result, evaluation);
  if (!result.ok) return fail(ctx, `${purpose}: ${result.error}`);
  adopt(ctx, result);
  if (result.next && chain) keepNext(ctx, purpose, result, chain);
  switch (purpose) {
    case 'enter':
      update(ctx, { phase: 'input' });
      break;
    case 'input':
      update(ctx, { phase: 'act', input: textOf(result.value) });
      break;
    case 'after':
      update(ctx, { phase: 'transitions' });
      break;
    case 'decide':
    case 'transitions':
      return decided(ctx, purpose, result.value);
    default:
      return settleInputs(ctx, purpose, result.value);
  }
  advance(ctx);
}

// An error handler's decision.
function settleError(ctx: StepContext, result: EvaluationResult, evaluation: Evaluation | null): void {
  const { plan, frame } = current(ctx);
  const last = (evaluation?.scope.last_error ?? { message: 'an error' }).message;
  if (!result.ok) return awaitUser(ctx, 'failure', `${plan.name}: state ${frame.state} failed (${last}) and its error handler failed too: ${result.error}; !continue tries the state again`);
  adopt(ctx, result);
  return onErrorDecided(ctx, textOf(result.value), last);
}

// The next state chosen by a transition handler (decide) or by the transitions (the index taken, or -1).
function decided(ctx: StepContext, purpose: 'decide' | 'transitions', value: unknown): void {
  const { plan, state, frame } = current(ctx);
  if (purpose === 'decide') {
    // SynthDev: a handler state's transition handler that names no state ends the run.
    if (state?.owned && textOf(value).trim() === '') return finish(ctx, `the transition handler of ${frame.state} named no state, so the run stopped (SynthDev)`);
    return goTo(ctx, textOf(value), `${plan.name}: ${frame.state} chose ${textOf(value)}`);
  }
  const taken = typeof value === 'number' ? state!.transitions[value] : undefined;
  // Seed 000: when no condition holds the run stops.
  if (!taken) return finish(ctx, `no transition of ${frame.state} held, so the run stopped (seed 000)`);
  return goTo(ctx, taken.target, `${frame.state} -> ${taken.target}`);
}

// The inputs of a sub-workflow, of a parallel state's branches or of a debate.
function settleInputs(ctx: StepContext, purpose: Evaluation['purpose'], value: unknown): void {
  const { state } = current(ctx);
  if (purpose === 'sub_input') return enterSub(ctx, (value ?? {}) as Record<string, unknown>);
  if (purpose === 'branch_input') return settleJoin(ctx, fanOut(ctx, state!.parallel!, (value ?? {}) as Record<string, unknown>));
  if (purpose === 'debate_input') return startDebate(ctx, state!.debate!, textOf(value));
  advance(ctx);
}
