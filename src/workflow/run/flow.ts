import { abortInFlight, awaitUser, changeState, emit, endSession, note, startCall, type StepContext } from '../../engine/context.js';
import { event } from '../../engine/event-map.js';
import { current, legacyRun, runOf, setFrame, update } from './access.js';
import { evaluate } from './ask.js';
import { agentOf, appendMessage, contextOf, keyOf, newFrame, stateOf } from './frames.js';
import { fanOut, type FanoutOutcome } from './fanout.js';
import { dropDebate, startDebate } from './debate.js';
import { MAX_DEPTH, ENDS, SUB_DONE } from './constants.js';
import { errorRoute, MAX_HANDLER_RETRIES, retryPhase } from './failure.js';
import type { StatePlan, WorkflowPlan } from './plan.js';
import type { Frame } from './state.js';
import { afterAfter, afterEnter, decisionRequest, inputRequest, targetsOf } from './chain.js';
import { countEntry, newRound } from './loop-guard.js';
import { hasResume, takeUserWords } from './user-words.js';
import { packedMap } from '../../engine/packed.js';

// How a workflow moves: the phases of a state, its agent's action, going to a state, entering a sub-workflow, finishing,
// joining, input that waited, failing. These call one another (a failure goes to a handler state, a join advances, a
// finished sub-workflow advances its parent), so they live in one file: split up, they import each other in a circle.

/** Runs the current state's phases until one needs the sandbox, a model or the user, or the run ends. */
export function advance(ctx: StepContext): void {
  for (let guard = 0; guard < 64; guard++) {
    const { frame, plan, state } = current(ctx);
    if (!state) return fail(ctx, `${plan.name}: no state "${frame.state}"`);
    switch (frame.phase) {
      case 'enter':
        // The entry code and the input are one sandbox job when both are code.
        if (state.enter) return evaluate(ctx, 'enter', { code: state.enter }, {}, afterEnter(state));
        update(ctx, { phase: 'input' });
        break;
      case 'input': {
        const asked = inputRequest(state);
        if (asked) return evaluate(ctx, asked.purpose, asked);
        if (state.parallel) return settleJoin(ctx, fanOut(ctx, state.parallel, {}));
        if (state.debate) return startDebate(ctx, state.debate, '');
        if (state.subWorkflow) return enterSub(ctx, {});
        update(ctx, state.agent ? { phase: 'act', input: '' } : { phase: 'after' });
        break;
      }
      case 'act': {
        // The agent's action: add a message or clear its context (out of line: few states do), or send (a model call: wait for it).
        if (state.action === 'clear' || state.action === 'add') {
          actOnContext(ctx, state);
          break;
        }
        const s = ctx.s;
        if (s.turn >= s.turnBudget) return awaitUser(ctx, 'limit', `max turns reached (${s.turnBudget}); !continue to go on`);
        update(ctx, { phase: 'call' });
        startCall(ctx, state.agent!, { kind: 'workflow', text: frame.input ?? '', state: state.name, ...takeUserWords(ctx) }, { path: keyOf(frame, state.name) });
        return;
      }
      case 'call':
      case 'fanout':
      case 'debate':
        return;
      case 'after':
        // After-code and the transitions are one sandbox job when both are code.
        if (state.after) return evaluate(ctx, 'after', { code: state.after }, {}, afterAfter(plan, state));
        update(ctx, { phase: 'transitions' });
        break;
      case 'transitions': {
        // The decision and the entry code (and input) of the state it chooses are one sandbox job.
        const asked = decisionRequest(state);
        if (!asked) return finish(ctx);
        const targets = targetsOf(plan, asked);
        return evaluate(ctx, asked.purpose, asked, {}, targets ? { targets } : undefined);
      }
    }
  }
  fail(ctx, 'the workflow went round without doing anything (a state loops on itself with no agent and no code)');
}

/** A state whose agent adds the state's input to its context, or clears its context, as its action. */
function actOnContext(ctx: StepContext, state: StatePlan): void {
  const { frame, plan } = current(ctx);
  const agent = agentOf(plan, state.agent!)!;
  const context = contextOf(plan, agent.context)!;
  if (state.action === 'clear') {
    update(ctx, { phase: 'after', contexts: { ...frame.contexts, [context.name]: packedMap(context.starting, (m) => ({ ...m })) } });
    return;
  }
  setFrame(ctx, { ...appendMessage(frame, context, { role: 'user', content: frame.input ?? '', from: 'workflow' }, legacyRun(ctx)), phase: 'after' });
}

/** Moves to a state of the running workflow (an entry the loop guard counts), or ends it (stop / end / a missing target is an error). */
export function goTo(ctx: StepContext, target: string, reason: string): void {
  const { frame, plan } = current(ctx);
  if (!stateOf(plan, target)) {
    if (ENDS.has(target)) return finish(ctx);
    return fail(ctx, `${plan.name}: state ${frame.state} goes to "${target}", which is not a state`);
  }
  changeState(ctx, keyOf(frame, target), 'workflow', reason);
  update(ctx, { state: target, phase: 'enter', input: null, retries: 0 });
  if (countEntry(ctx, target)) advance(ctx);
}

/** A sub-workflow starts: a frame of its own (isolated contexts), its input mapped from the parent. */
export function enterSub(ctx: StepContext, inputs: Record<string, unknown>): void {
  const { run, frame, plan, state } = current(ctx);
  const name = state!.subWorkflow!.name;
  const child = plan.subWorkflows[name];
  if (!child) return fail(ctx, `${plan.name}: state ${frame.state} runs the sub-workflow "${name}", which is not loaded`);
  if (run.frames.length >= MAX_DEPTH) return fail(ctx, `sub-workflows nest deeper than ${MAX_DEPTH}`);
  const next = newFrame(child, { plan: [...frame.plan, name], prefix: [...frame.prefix, frame.state] }, inputs[child.input.name] ?? '');
  next.common_data = { ...next.common_data, ...inputs };
  ctx.s.workflow = { ...runOf(ctx), frames: [...run.frames, next] };
  // Entering the sub-workflow's compound state already entered its start state.
  const start = keyOf(next, child.start);
  if (!ctx.s.configuration.includes(start)) changeState(ctx, start, 'workflow', `sub-workflow ${name} started`);
  if (countEntry(ctx, child.start)) advance(ctx);
}

/** The run's output: a final state's `input` when it gives a value (SynthDev's stop state), else common_data[output.name]. */
function outputOf(frame: Frame, plan: WorkflowPlan, state: StatePlan | undefined): unknown {
  const given = state?.output;
  if (given && 'text' in given) return given.text;
  if (given) {
    let v: unknown = frame.common_data;
    for (const k of given.path) v = v !== null && typeof v === 'object' && Object.hasOwn(v, k) ? (v as Record<string, unknown>)[k] : undefined;
    if (v !== undefined && v !== null) return v;
  }
  return frame.common_data[plan.output.name];
}

/** The running workflow reached its end: its output goes to the parent (a sub-workflow), or the session ends with it. */
export function finish(ctx: StepContext, why?: string): void {
  const { run, frame, plan, state } = current(ctx);
  const output = outputOf(frame, plan, state);
  if (run.frames.length === 1 && plan.chat) {
    // Role mode (seed 003): the user's next message goes to the resume state, in the same conversation.
    ctx.s.workflow = { ...run, output, evaluating: null };
    const agent = plan.agents[0];
    return awaitUser(ctx, 'respond_to_user', `${agent?.name ?? 'the role'} answered; your turn (!quit ends the chat)`);
  }
  if (run.frames.length === 1) {
    ctx.s.workflow = { ...run, output, evaluating: null };
    // A workflow may say how it ended (e.g. "approved after 1 revision") in common_data.end_reason.
    const said = frame.common_data.end_reason;
    const detail = typeof said === 'string' && said.trim() ? said.trim() : why;
    endSession(ctx, `workflow ${plan.name} complete${detail ? `: ${detail}` : ''}`, output);
    return;
  }
  const parent = run.frames[run.frames.length - 2]!;
  ctx.s.workflow = { ...run, frames: [...run.frames.slice(0, -2), { ...parent, subWorkflowResult: output, phase: 'after' }] };
  changeState(ctx, keyOf(frame, SUB_DONE), 'workflow', `sub-workflow ${plan.name} complete`);
  advance(ctx);
}

/** Seed 003: unsolicited input goes to the `resume` state, else the run starts over (contexts kept). */
export function redirect(ctx: StepContext, words: string): void {
  const { frame, plan } = current(ctx);
  abortInFlight(ctx, 'user interjected');
  dropDebate(ctx, 'user interjected');
  ctx.s.workflow = { ...runOf(ctx), evaluating: null, question: null };
  // The user is in the loop now: the loop guard counts afresh.
  newRound(ctx);
  update(ctx, { common_data: { ...frame.common_data, resume_input: words } });
  const target = hasResume(ctx) ? plan.resume! : plan.start;
  goTo(ctx, target, `user input: ${target === plan.resume ? 'resume' : 'start over'}`);
}

/**
 * The branches joined or the debate is over: input typed meanwhile goes to the resume state (true: the run
 * went there). Without one it stays for the next agent's turn (takeUserWords), and the state goes on.
 */
export function deliverDeferred(ctx: StepContext): boolean {
  const run = runOf(ctx);
  if (run.deferredInput === undefined || !hasResume(ctx)) return false;
  const { deferredInput: words, ...rest } = run;
  ctx.s.workflow = rest;
  redirect(ctx, words);
  return true;
}

/** The fan-out went on, failed or joined: a joined state moves to its after-code, and input that came meanwhile is delivered. */
export function settleJoin(ctx: StepContext, outcome: FanoutOutcome): void {
  if (outcome.kind === 'wait') return;
  if (outcome.kind === 'fail') return fail(ctx, outcome.reason);
  update(ctx, { phase: 'after' });
  if (deliverDeferred(ctx)) return;
  advance(ctx);
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
