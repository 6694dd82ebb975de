import type { Policy } from '../../engine/definition.js';
import { abortInFlight, awaitUser, changeState, emit, endSession, type StepContext } from '../../engine/context.js';
import { event } from '../../engine/event-map.js';
import type { EngineInput } from '../../engine/input-events.js';
import type { Effect } from '../../engine/effects.js';
import { rootPlan, update } from './access.js';
import { inputProblem, inputValue, keyOf, newFrame } from './frames.js';
import { branchOf, runningBranchCalls } from './fanout.js';
import { debateCallFailed, debateCallOf, pendingDebateCalls } from './debate.js';
import { advance, fail } from './flow.js';
import { onEvaluated, settle } from './evaluated.js';
import { takeAnswered } from './ask.js';
import { onBranch, onReplied } from './replies.js';
import { onUserText, onContinue, notInWorkflow } from './user-input.js';
import { countEntry } from './loop-guard.js';

/** Declarative workflows: states run code in the sandbox, agents in their contexts, sub-workflows and conditions. */
export const workflowPolicy: Policy = {
  initialState: () => ({}),
  resumeEffects(session) {
    const run = session.workflow;
    const frame = run?.frames.at(-1);
    if (!run || !frame) return [];
    return [
      ...[...runningBranchCalls(frame.branches), ...pendingDebateCalls(frame.debate)].map((call): Effect => ({ type: 'call_agent', call })),
      ...(run.evaluating ? [{ type: 'evaluate' as const, id: run.evaluating.id, evaluation: run.evaluating.evaluation }] : []),
    ];
  },
  start(ctx, brief) {
    begin(ctx, brief);
    settleAnswered(ctx);
  },
  onInput(ctx, input: EngineInput) {
    onInput(ctx, input);
    settleAnswered(ctx);
  },
};

/** Settles what the host answered in this step, in order; settling may move the run to more host-answered code. */
function settleAnswered(ctx: StepContext): void {
  for (let next = takeAnswered(ctx); next; next = takeAnswered(ctx)) settle(ctx, next.id, next.purpose, next.result, null, next.chain);
}

/** The session's first step: the run's first frame, on its start state. */
function begin(ctx: StepContext, brief: string): void {
  const plan = rootPlan(ctx);
  // Launchers refuse such input before a session exists; a session given one anyway ends, failed, without taking it in.
  const problem = inputProblem(plan, brief);
  const frame = newFrame(plan, { plan: [], prefix: [] }, problem ? '' : inputValue(plan, brief), brief);
  ctx.s.workflow = { frames: [frame], evalSeq: 0, evaluating: null, question: null, error: problem };
  emit(ctx, event('user_input', { text: brief, kind: 'brief' }));
  if (problem) return endSession(ctx, problem);
  changeState(ctx, keyOf(frame, plan.start), 'workflow', `workflow ${plan.name} started`);
  if (countEntry(ctx, plan.start)) advance(ctx);
}

/** An input of a running session: the sandbox's answers, the agents' replies, the user's words and commands. */
function onInput(ctx: StepContext, input: EngineInput): void {
  switch (input.type) {
    case 'evaluated':
      return onEvaluated(ctx, input.id, input.result);
    case 'agent_replied':
      return onReplied(ctx, input.turnId, input.text, input.toolCalls, input.changes, input.raw);
    case 'agent_failed': {
      const branch = branchOf(ctx, input.turnId);
      if (branch) return onBranch(ctx, branch, input.turnId, { ok: false, error: input.reason });
      const reviewer = debateCallOf(ctx, input.turnId);
      if (reviewer !== null) return fail(ctx, debateCallFailed(ctx, reviewer, input.reason));
      const call = ctx.s.inFlight;
      if (!call || call.turnId !== input.turnId) return;
      ctx.s.inFlight = null;
      return fail(ctx, input.reason);
    }
    case 'agent_completed':
      // A workflow agent's answer comes as agent_replied; a directive result has no place here.
      return;
    case 'user_message':
      return onUserText(ctx, input.text);
    case 'user_continue':
    case 'user_approve':
      return onContinue(ctx);
    case 'user_quit':
      return endSession(ctx, 'user quit');
    case 'budget_exceeded': {
      if (input.turnId !== undefined && ctx.s.inFlight?.turnId !== input.turnId) return;
      abortInFlight(ctx, input.reason);
      update(ctx, { phase: 'act' });
      return awaitUser(ctx, 'limit', input.reason);
    }
    case 'start':
    case 'detach':
      return;
    default:
      // Another policy's steering (a team's !handoff, !rework, …) has no meaning here: say so, change nothing.
      if ('command' in input && input.command) return notInWorkflow(ctx, `!${input.command.name}`);
  }
}
