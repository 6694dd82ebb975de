import type { Policy } from '../../engine/definition.js';
import { abortInFlight, awaitUser, changeState, countVisit, emit, endSession, note, startCall, type StepContext } from '../../engine/context.js';
import { event } from '../../engine/event-map.js';
import type { EngineInput } from '../../engine/input-events.js';
import type { EvaluationResult } from './evaluation.js';
import { current, evaluate, rootPlan, runOf, setFrame, update } from './access.js';
import { agentOf, appendMessage, inputValue, keyOf, newFrame, stateOf } from './frames.js';
import type { Changes, Frame, ToolCallRecord } from './state.js';
import { branchFinished, branchOf, fanOut, runningBranchCalls, WHEN, type FanoutOutcome } from './fanout.js';
import { debateTurnDone, startDebate } from './debate.js';
import type { Effect } from '../../engine/effects.js';
import type { AgentPlan, Code, StatePlan } from './plan.js';

/** The tool a role uses to ask the user (seed 003); its answer comes back as the tool's result. */
export const ASK_USER_TOOL = 'request_users_input';
/** How deep sub-workflows may nest. */
export const MAX_DEPTH = 8;
const ENDS = new Set(['stop', 'end']);

/** Runs the current state's phases until one needs the sandbox, a model or the user, or the run ends. */
function advance(ctx: StepContext): void {
  for (let guard = 0; guard < 64; guard++) {
    const { frame, plan, state } = current(ctx);
    if (!state) return fail(ctx, `${plan.name}: no state "${frame.state}"`);
    switch (frame.phase) {
      case 'enter':
        if (state.enter) return evaluate(ctx, 'enter', { code: state.enter });
        update(ctx, { phase: 'input' });
        break;
      case 'input':
        if (state.parallel) {
          const fields = Object.fromEntries(state.parallel.branches.flatMap((b) => [...(b.input ? [[b.id, b.input]] : []), ...(b.when ? [[`${WHEN}${b.id}`, b.when]] : [])]));
          if (Object.keys(fields).length > 0) return evaluate(ctx, 'branch_input', { fields });
          return settleJoin(ctx, fanOut(ctx, state.parallel, {}));
        }
        if (state.debate) {
          if (state.debate.input) return evaluate(ctx, 'debate_input', { code: state.debate.input });
          return startDebate(ctx, state.debate, '');
        }
        if (state.subWorkflow) {
          if (Object.keys(state.subWorkflow.input).length > 0) return evaluate(ctx, 'sub_input', { fields: state.subWorkflow.input });
          return enterSub(ctx, {});
        }
        if (!state.agent) {
          update(ctx, { phase: 'after' });
          break;
        }
        if (state.input) return evaluate(ctx, 'input', { code: state.input });
        update(ctx, { phase: 'act', input: '' });
        break;
      case 'act':
        if (!act(ctx)) return;
        break;
      case 'call':
      case 'fanout':
      case 'debate':
        return;
      case 'after':
        if (state.after) return evaluate(ctx, 'after', { code: state.after });
        update(ctx, { phase: 'transitions' });
        break;
      case 'transitions':
        if (state.final || (state.transitions.length === 0 && !state.decide)) return finish(ctx);
        if (state.decide) return evaluate(ctx, 'decide', { code: state.decide });
        return evaluate(ctx, 'transitions', { transitions: state.transitions.map((t) => ({ condition: t.condition, before: t.before })) });
    }
  }
  fail(ctx, 'the workflow went round without doing anything (a state loops on itself with no agent and no code)');
}

/** The agent's action: send (a model call; returns false to wait), add a message, or clear its context. */
function act(ctx: StepContext): boolean {
  const { frame, plan, state } = current(ctx);
  const agent = agentOf(plan, state!.agent!)!;
  const context = plan.contexts.find((c) => c.name === agent.context)!;
  if (state!.action === 'clear') {
    update(ctx, { phase: 'after', contexts: { ...frame.contexts, [context.name]: context.starting.map((m) => ({ ...m })) } });
    return true;
  }
  if (state!.action === 'add') {
    setFrame(ctx, { ...appendMessage(frame, context, { role: 'user', content: frame.input ?? '', from: 'workflow' }), phase: 'after' });
    return true;
  }
  const s = ctx.s;
  if (s.turn >= s.turnBudget) {
    awaitUser(ctx, 'limit', `max turns reached (${s.turnBudget}); !continue to go on`);
    return false;
  }
  update(ctx, { phase: 'call' });
  startCall(ctx, agent.id, { kind: 'workflow', text: frame.input ?? '', state: state!.name }, { path: keyOf(frame, state!.name) });
  return false;
}

/** Moves to a state of the running workflow, or ends it (stop / end / a missing target is an error). */
function goTo(ctx: StepContext, target: string, reason: string): void {
  const { frame, plan } = current(ctx);
  if (!stateOf(plan, target)) {
    if (ENDS.has(target)) return finish(ctx);
    return fail(ctx, `${plan.name}: state ${frame.state} goes to "${target}", which is not a state`);
  }
  changeState(ctx, keyOf(frame, target), 'workflow', reason);
  update(ctx, { state: target, phase: 'enter', input: null, retries: 0 });
  advance(ctx);
}

/** A sub-workflow starts: a frame of its own (isolated contexts), its input mapped from the parent. */
function enterSub(ctx: StepContext, inputs: Record<string, unknown>): void {
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
  advance(ctx);
}

/** The running workflow reached its end: its output goes to the parent (a sub-workflow), or the session ends with it. */
function finish(ctx: StepContext, why?: string): void {
  const { run, frame, plan } = current(ctx);
  const output = frame.common_data[plan.output.name];
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

/** The id of the final state a compiled sub-workflow ends in. */
export const SUB_DONE = '__done';

/** Most times an error handler may send a state round again ("retry"), so a handler cannot loop forever. */
export const MAX_HANDLER_RETRIES = 10;

/** Where a failed state goes once its retries are spent: its own error_handler, else the workflow's. */
function errorRoute(ctx: StepContext): { state: string } | { code: Code } | null {
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
function fail(ctx: StepContext, reason: string): void {
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
function onErrorDecided(ctx: StepContext, decision: string, reason: string): void {
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
function stopFailed(ctx: StepContext, reason: string): void {
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
function retryPhase(phase: Frame['phase']): Frame['phase'] {
  if (phase === 'call') return 'act';
  if (phase === 'fanout' || phase === 'debate') return 'input';
  return phase;
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value);
}

/** Takes what code changed: common_data, messages it added to contexts (trimmed to their max_length), and what it logged (as notes). */
function adopt(ctx: StepContext, result: Extract<EvaluationResult, { ok: true }>): void {
  const { frame, plan } = current(ctx);
  let next: Frame = { ...frame, common_data: result.common_data };
  for (const [name, messages] of Object.entries(result.contexts ?? {})) {
    const context = plan.contexts.find((c) => c.name === name);
    if (!context) continue;
    const before = frame.contexts[name] ?? [];
    // Code may only add messages: the ones past what the context held are appended (and trimmed as any other).
    for (const m of messages.slice(before.length)) next = appendMessage(next, context, { role: m.role, content: m.content, from: 'code' });
  }
  setFrame(ctx, next);
  const logs = result.logs ?? [];
  for (const line of logs.slice(0, MAX_LOG_NOTES)) note(ctx, `${plan.name}.${frame.state}: ${line}`);
  if (logs.length > MAX_LOG_NOTES) note(ctx, `${plan.name}.${frame.state}: ${logs.length - MAX_LOG_NOTES} more log line(s) not shown`);
}

/** Console lines of one evaluation shown as notes (the sandbox caps what it collects; this caps what is shown). */
const MAX_LOG_NOTES = 5;

function onEvaluated(ctx: StepContext, id: string, result: EvaluationResult): void {
  const run = runOf(ctx);
  if (!run.evaluating || run.evaluating.id !== id) return;
  const purpose = run.evaluating.purpose;
  ctx.s.workflow = { ...run, evaluating: null };
  const { plan, state, frame } = current(ctx);
  if (purpose === 'error') {
    const last = (run.evaluating.evaluation.scope.last_error ?? { message: 'an error' }).message;
    if (!result.ok) return awaitUser(ctx, 'failure', `${plan.name}: state ${frame.state} failed (${last}) and its error handler failed too: ${result.error}; !continue tries the state again`);
    adopt(ctx, result);
    return onErrorDecided(ctx, text(result.value), last);
  }
  if (!result.ok) return fail(ctx, `${purpose}: ${result.error}`);
  adopt(ctx, result);
  switch (purpose) {
    case 'enter':
      update(ctx, { phase: 'input' });
      break;
    case 'input':
      update(ctx, { phase: 'act', input: text(result.value) });
      break;
    case 'after':
      update(ctx, { phase: 'transitions' });
      break;
    case 'sub_input':
      return enterSub(ctx, (result.value ?? {}) as Record<string, unknown>);
    case 'branch_input':
      return settleJoin(ctx, fanOut(ctx, state!.parallel!, (result.value ?? {}) as Record<string, unknown>));
    case 'debate_input':
      return startDebate(ctx, state!.debate!, text(result.value));
    case 'decide':
      return goTo(ctx, text(result.value), `${plan.name}: ${frame.state} chose ${text(result.value)}`);
    case 'transitions': {
      const taken = typeof result.value === 'number' ? state!.transitions[result.value] : undefined;
      // Seed 000: when no condition holds the run stops.
      if (!taken) return finish(ctx, `no transition of ${frame.state} held, so the run stopped (seed 000)`);
      return goTo(ctx, taken.target, `${frame.state} -> ${taken.target}`);
    }
  }
  advance(ctx);
}

/** A branch of the running fan-out answered or failed: it is recorded, and the state goes on once the branches join. */
function onBranch(ctx: StepContext, branch: string, turnId: string, result: Parameters<typeof branchFinished>[3]): void {
  const { frame, state } = current(ctx);
  const call = frame.branches![branch]!.call!;
  if (result.ok) {
    ctx.s.turn += 1;
    countVisit(ctx, call.path);
    emit(ctx, event('agent_message', { turn_id: turnId, path: call.path, persona: call.persona, text: result.text, turn: ctx.s.turn, branch }));
  } else emit(ctx, event('error', { message: result.error, where: `${frame.state}.${branch} (${turnId})` }));
  settleJoin(ctx, branchFinished(ctx, state!.parallel!, branch, result));
}

/** The fan-out went on, failed or joined: a joined state moves to its after-code, and input that came meanwhile is delivered. */
function settleJoin(ctx: StepContext, outcome: FanoutOutcome): void {
  if (outcome.kind === 'wait') return;
  if (outcome.kind === 'fail') return fail(ctx, outcome.reason);
  update(ctx, { phase: 'after' });
  const deferred = runOf(ctx).deferredInput;
  if (deferred !== undefined) {
    const { deferredInput: _taken, ...run } = runOf(ctx);
    ctx.s.workflow = run;
    return onUserText(ctx, deferred);
  }
  advance(ctx);
}

function onReplied(ctx: StepContext, turnId: string, words: string, toolCalls: ToolCallRecord[], changes?: Changes): void {
  const branch = branchOf(ctx, turnId);
  if (branch) return onBranch(ctx, branch, turnId, { ok: true, text: words, toolCalls, ...(changes ? { changes } : {}) });
  const s = ctx.s;
  const call = s.inFlight;
  if (!call || call.turnId !== turnId) return;
  s.inFlight = null;
  s.turn += 1;
  countVisit(ctx, call.path);
  emit(ctx, event('agent_message', { turn_id: turnId, path: call.path, persona: call.persona, text: words, turn: s.turn }));
  const { frame, plan } = current(ctx);
  const agent = agentOf(plan, call.persona)!;
  const context = plan.contexts.find((c) => c.name === agent.context)!;
  // The context is kept as its `assistant` agents see it: their input and words as user and assistant;
  // a `user` agent's words are what the user says in it.
  let next = frame;
  if (agent.role === 'assistant') {
    if (call.inbox.kind === 'workflow') next = appendMessage(next, context, { role: 'user', content: call.inbox.text, from: 'workflow' });
    if (call.inbox.kind === 'workflow_answer') next = appendMessage(next, context, { role: 'user', content: `(the user answered "${call.inbox.question}": ${call.inbox.text})`, from: 'user' });
    next = appendMessage(next, context, { role: 'assistant', content: words, from: agent.id });
  } else {
    next = appendMessage(next, context, { role: 'user', content: words, from: agent.id });
  }
  next = { ...next, agents: { ...next.agents, [agent.id]: { response: words, toolCalls, turns: (next.agents[agent.id]?.turns ?? 0) + 1 } }, lastAgent: agent.id };
  if (frame.phase === 'debate') {
    setFrame(ctx, next);
    if (debateTurnDone(ctx, current(ctx).state!.debate!, words, toolCalls).kind === 'wait') return;
    update(ctx, { phase: 'after' });
    return advance(ctx);
  }
  const ask = toolCalls.find((c) => c.name === ASK_USER_TOOL);
  if (ask && agent.requestUserInput) {
    const question = text((ask.arguments as { question?: unknown } | null)?.question ?? ask.arguments);
    setFrame(ctx, next);
    ctx.s.workflow = { ...runOf(ctx), question: { agent: agent.id, toolCallId: ask.id ?? `${turnId}-ask`, question } };
    awaitUser(ctx, 'question', `${agent.name} asks you: ${question}`);
    return;
  }
  const missing = unreadTools(current(ctx).state!, agent, toolCalls);
  if (missing.length > 0) {
    setFrame(ctx, next);
    const wanted = missing.join(' or ');
    // One repair round, forcing the tool (as a directive's repair): conditions that read it would otherwise silently fail.
    if (call.attempt === 1) {
      note(ctx, `${agent.name} did not call ${wanted}, which the conditions of ${frame.state} read; asking once more`);
      startCall(ctx, agent.id, { kind: 'workflow', text: `You did not call ${wanted}. The workflow reads your answer from that call: call ${wanted} now, with your verdict.`, state: frame.state }, { path: call.path, attempt: 2, repair: missing[0]! });
      return;
    }
    return fail(ctx, `${agent.name} did not call ${wanted}, which the conditions of ${frame.state} read (asked twice)`);
  }
  setFrame(ctx, { ...next, phase: 'after' });
  advance(ctx);
}

/** Parsing tools of the agent that the state's conditions read (`function.X.`) but that its answer did not call. */
function unreadTools(state: StatePlan, agent: AgentPlan, toolCalls: ToolCallRecord[]): string[] {
  const offered = new Set(agent.parsingTools.map((t) => t.name));
  const read = new Set<string>();
  for (const t of state.transitions) {
    for (const code of [t.condition, t.before]) {
      if (code && code.kind !== 'handler') for (const m of code.source.matchAll(/\bfunction\s*\.\s*([A-Za-z_$][\w$]*)\s*\./g)) if (offered.has(m[1]!)) read.add(m[1]!);
    }
  }
  if (read.size === 0 || toolCalls.some((c) => read.has(c.name))) return [];
  return [...read];
}

function onUserText(ctx: StepContext, words: string): void {
  const { run, frame, plan } = current(ctx);
  const s = ctx.s;
  if (frame.phase === 'fanout') {
    // Branches are not interrupted by one line: it waits for their join, then goes where input goes.
    ctx.s.workflow = { ...run, deferredInput: words };
    note(ctx, `the branches of ${frame.state} are running; your input goes to the workflow once they join`);
    return;
  }
  emit(ctx, event('user_input', { text: words }));
  if (run.question && s.status === 'awaiting_user') {
    const q = run.question;
    ctx.s.workflow = { ...run, question: null };
    startCall(ctx, q.agent, { kind: 'workflow_answer', text: words, state: frame.state, toolCallId: q.toolCallId, question: q.question }, { path: keyOf(frame, frame.state) });
    return;
  }
  // Seed 003: unsolicited input goes to the `resume` state, else the run starts over (contexts kept).
  abortInFlight(ctx, 'user interjected');
  ctx.s.workflow = { ...runOf(ctx), evaluating: null, question: null };
  update(ctx, { common_data: { ...frame.common_data, resume_input: words } });
  const target = plan.resume && stateOf(plan, plan.resume) ? plan.resume : plan.start;
  goTo(ctx, target, `user input: ${target === plan.resume ? 'resume' : 'start over'}`);
}

function onContinue(ctx: StepContext): void {
  const s = ctx.s;
  if (s.status !== 'awaiting_user' || !s.awaiting) {
    note(ctx, s.status === 'running' ? 'the workflow is already running' : 'nothing is waiting');
    return;
  }
  if (s.awaiting.code === 'question') {
    note(ctx, 'the workflow waits for your answer: type it');
    return;
  }
  if (s.awaiting.code === 'limit' && s.turn >= s.turnBudget) s.turnBudget = s.turn + ctx.def.limits.max_turns;
  const { frame } = current(ctx);
  s.status = 'running';
  s.awaiting = null;
  update(ctx, { retries: 0, phase: frame.phase === 'call' ? 'act' : frame.phase });
  advance(ctx);
}

/** Team commands that have no meaning in a workflow say so instead of doing something else. */
function notInWorkflow(ctx: StepContext, what: string): void {
  note(ctx, `${what} is a team command; this session runs the workflow ${rootPlan(ctx).name} (type to send it input, !continue, !quit)`);
}

/** Declarative workflows: states run code in the sandbox, agents in their contexts, sub-workflows and conditions. */
export const workflowPolicy: Policy = {
  initialRouting: () => null,
  resumeEffects(session) {
    const run = session.workflow;
    const frame = run?.frames.at(-1);
    if (!run || !frame) return [];
    return [
      ...runningBranchCalls(frame.branches).map((call): Effect => ({ type: 'call_agent', call })),
      ...(run.evaluating ? [{ type: 'evaluate' as const, id: run.evaluating.id, evaluation: run.evaluating.evaluation }] : []),
    ];
  },
  start(ctx, brief) {
    const plan = rootPlan(ctx);
    const frame = newFrame(plan, { plan: [], prefix: [] }, inputValue(plan, brief));
    ctx.s.workflow = { frames: [frame], evalSeq: 0, evaluating: null, question: null, error: null };
    emit(ctx, event('user_input', { text: brief }));
    changeState(ctx, keyOf(frame, plan.start), 'workflow', `workflow ${plan.name} started`);
    advance(ctx);
  },
  onInput(ctx, input: EngineInput) {
    switch (input.type) {
      case 'evaluated':
        return onEvaluated(ctx, input.id, input.result);
      case 'agent_replied':
        return onReplied(ctx, input.turnId, input.text, input.toolCalls, input.changes);
      case 'agent_failed': {
        const branch = branchOf(ctx, input.turnId);
        if (branch) return onBranch(ctx, branch, input.turnId, { ok: false, error: input.reason });
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
      case 'user_handoff':
        return notInWorkflow(ctx, '!handoff');
      case 'user_rework':
        return notInWorkflow(ctx, '!rework');
      case 'user_switch_major':
        return notInWorkflow(ctx, '!switch_to');
      case 'user_call_agent':
        return notInWorkflow(ctx, '!call_agent');
      case 'user_mode':
        return notInWorkflow(ctx, `!${input.mode}`);
      case 'start':
      case 'detach':
        return;
    }
  },
};
