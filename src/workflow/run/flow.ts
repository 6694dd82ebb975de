import { awaitUser, changeState, endSession, startCall, type StepContext } from '../../engine/context.js';
import { current, evaluate, legacyRun, runOf, setFrame, update } from './access.js';
import { agentOf, appendMessage, keyOf, newFrame, stateOf } from './frames.js';
import { fanOut } from './fanout.js';
import { startDebate } from './debate.js';
import { MAX_DEPTH, ENDS, SUB_DONE } from './constants.js';
import { fail } from './failure.js';
import { settleJoin } from './replies.js';
import type { StatePlan, WorkflowPlan } from './plan.js';
import type { Frame } from './state.js';
import { afterAfter, afterEnter, decisionRequest, inputRequest, targetsOf } from './chain.js';
import { countEntry } from './loop-guard.js';
import { takeUserWords } from './user-input.js';

// How a workflow moves: the phases of a state, its agent's action, going to a state, entering a sub-workflow, finishing.

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
      case 'act':
        if (!act(ctx)) return;
        break;
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

/** The agent's action: send (a model call; returns false to wait), add a message, or clear its context. */
export function act(ctx: StepContext): boolean {
  const { frame, plan, state } = current(ctx);
  const agent = agentOf(plan, state!.agent!)!;
  const context = plan.contexts.find((c) => c.name === agent.context)!;
  if (state!.action === 'clear') {
    update(ctx, { phase: 'after', contexts: { ...frame.contexts, [context.name]: context.starting.map((m) => ({ ...m })) } });
    return true;
  }
  if (state!.action === 'add') {
    setFrame(ctx, { ...appendMessage(frame, context, { role: 'user', content: frame.input ?? '', from: 'workflow' }, legacyRun(ctx)), phase: 'after' });
    return true;
  }
  const s = ctx.s;
  if (s.turn >= s.turnBudget) {
    awaitUser(ctx, 'limit', `max turns reached (${s.turnBudget}); !continue to go on`);
    return false;
  }
  update(ctx, { phase: 'call' });
  startCall(ctx, agent.id, { kind: 'workflow', text: frame.input ?? '', state: state!.name, ...takeUserWords(ctx) }, { path: keyOf(frame, state!.name) });
  return false;
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
