import { awaitUser, countVisit, emit, note, startCall, type StepContext } from '../../engine/context.js';
import { event } from '../../engine/event-map.js';
import { current, legacyRun, runOf, setFrame, update } from './access.js';
import { agentOf, appendMessage as append } from './frames.js';
import type { Changes, ToolCallRecord } from '../../engine/agent-reply.js';
import { branchFinished, branchOf } from './fanout.js';
import { debateCallOf, debateTurnDone } from './debate.js';
import type { AgentPlan, ContextPlan, StatePlan } from './plan.js';
import type { Frame, WorkflowMessage } from './state.js';
import type { AgentCall } from '../../engine/moves.js';
import type { RawResponse } from '../../engine/evaluation.js';
import { ASK_USER_TOOL, textOf } from './constants.js';
import { inboxText } from './inbox.js';
import { advance, deliverDeferred, fail, settleJoin } from './flow.js';

// An agent answered: its words into its context, the branch or the debate it belongs to, its parsing tools read.

/** A branch of the running fan-out answered or failed: it is recorded, and the state goes on once the branches join. */
export function onBranch(ctx: StepContext, branch: string, turnId: string, result: Parameters<typeof branchFinished>[3]): void {
  const { frame, state } = current(ctx);
  const call = frame.branches![branch]!.call!;
  if (result.ok) {
    ctx.s.turn += 1;
    countVisit(ctx, call.path);
    emit(ctx, event('agent_message', { turn_id: turnId, path: call.path, persona: call.persona, text: result.text, turn: ctx.s.turn, branch }));
  } else emit(ctx, event('error', { message: result.error, where: `${frame.state}.${branch} (${turnId})` }));
  settleJoin(ctx, branchFinished(ctx, state!.parallel!, branch, result));
}

/** An agent answered (a branch's, a debate's or the state's agent): its words into its context (unless the state's handlers own it), its tools read. */
export function onReplied(ctx: StepContext, turnId: string, words: string, toolCalls: ToolCallRecord[], changes?: Changes, raw?: RawResponse): void {
  const branch = branchOf(ctx, turnId);
  if (branch) return onBranch(ctx, branch, turnId, { ok: true, text: words, toolCalls, ...(changes ? { changes } : {}) });
  const reviewer = debateCallOf(ctx, turnId);
  if (reviewer !== null) return onIndependentReview(ctx, reviewer, turnId, words, toolCalls, raw);
  const s = ctx.s;
  const call = s.inFlight;
  if (!call || call.turnId !== turnId) return;
  s.inFlight = null;
  s.turn += 1;
  countVisit(ctx, call.path);
  emit(ctx, event('agent_message', { turn_id: turnId, path: call.path, persona: call.persona, text: words, turn: s.turn }));
  const { frame, plan, state } = current(ctx);
  const agent = agentOf(plan, call.persona)!;
  const context = plan.contexts.find((c) => c.name === agent.context)!;
  const ask = frame.phase === 'debate' ? undefined : toolCalls.find((c) => c.name === ASK_USER_TOOL);
  const asking = ask !== undefined && agent.requestUserInput;
  let next = frame;
  // SynthDev's handler states: the handlers own the context, the answer is not added to it. Otherwise the
  // context is kept as its `assistant` agents see it: their input and words as user and assistant; a
  // `user` agent's words are what the user says in it. An agent that asks the user has its words added
  // once the answer came (the question and answer travel as its tool call and the tool's result).
  if (!state?.owned && frame.phase !== 'debate' && !asking) next = appendTurn(next, context, agent, call.inbox, words, legacyRun(ctx));
  next = { ...next, agents: { ...next.agents, [agent.id]: { response: words, toolCalls, turns: (next.agents[agent.id]?.turns ?? 0) + 1, ...(raw ? { raw } : {}) } }, lastAgent: agent.id };
  if (frame.phase === 'debate') {
    setFrame(ctx, next);
    if (debateTurnDone(ctx, current(ctx).state!.debate!, words, toolCalls).kind === 'wait') return;
    update(ctx, { phase: 'after' });
    if (deliverDeferred(ctx)) return;
    return advance(ctx);
  }
  if (ask && asking) {
    const question = textOf((ask.arguments as { question?: unknown } | null)?.question ?? ask.arguments);
    setFrame(ctx, next);
    const rawCall = raw?.tool_calls.find((c) => c.name === ASK_USER_TOOL && (ask.id === undefined || c.id === ask.id));
    const input = call.inbox.kind === 'workflow' ? call.inbox.text : undefined;
    ctx.s.workflow = {
      ...runOf(ctx),
      question: {
        agent: agent.id,
        toolCallId: ask.id ?? `${turnId}-ask`,
        question,
        said: words,
        ...(rawCall ? { arguments: rawCall.arguments } : {}),
        ...(input !== undefined && !state?.owned ? { input } : {}),
      },
    };
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
      startCall(
        ctx,
        agent.id,
        { kind: 'workflow', text: `You did not call ${wanted}. The workflow reads your answer from that call: call ${wanted} now, with your verdict.`, state: frame.state },
        { path: call.path, attempt: 2, repair: missing[0]! },
      );
      return;
    }
    return fail(ctx, `${agent.name} did not call ${wanted}, which the conditions of ${frame.state} read (asked twice)`);
  }
  setFrame(ctx, { ...next, phase: 'after' });
  advance(ctx);
}

/** A reviewer's independent review (a debate's first round, all at once) came back. */
function onIndependentReview(ctx: StepContext, reviewer: string, turnId: string, words: string, toolCalls: ToolCallRecord[], raw?: RawResponse): void {
  const { frame, state } = current(ctx);
  const call = frame.debate!.pending![reviewer]!;
  ctx.s.turn += 1;
  countVisit(ctx, call.path);
  emit(ctx, event('agent_message', { turn_id: turnId, path: call.path, persona: reviewer, text: words, turn: ctx.s.turn, branch: reviewer }));
  update(ctx, { agents: { ...frame.agents, [reviewer]: { response: words, toolCalls, turns: (frame.agents[reviewer]?.turns ?? 0) + 1, ...(raw ? { raw } : {}) } }, lastAgent: reviewer });
  if (debateTurnDone(ctx, state!.debate!, words, toolCalls, reviewer).kind === 'wait') return;
  update(ctx, { phase: 'after' });
  if (deliverDeferred(ctx)) return;
  advance(ctx);
}

/** The messages an agent's turn adds to its context: what it was sent (the state's input, or the user's answer to its question) and what it said. */
function appendTurn(frame: Frame, context: ContextPlan, agent: AgentPlan, inbox: AgentCall['inbox'], words: string, legacy: boolean): Frame {
  let next = frame;
  const appendMessage = (f: Frame, c: ContextPlan, m: WorkflowMessage) => append(f, c, m, legacy);
  if (agent.role === 'assistant') {
    if (inbox.kind === 'workflow') next = appendMessage(next, context, { role: 'user', content: inboxText(inbox), from: 'workflow' });
    if (inbox.kind === 'workflow_answer') {
      // The turn that asked: its input (held back while the user was asked) and its words, then the answer.
      if (inbox.input !== undefined) next = appendMessage(next, context, { role: 'user', content: inbox.input, from: 'workflow' });
      if (inbox.said) next = appendMessage(next, context, { role: 'assistant', content: inbox.said, from: agent.id });
      next = appendMessage(next, context, { role: 'user', content: `(the user answered "${inbox.question}": ${inbox.text})`, from: 'user' });
    }
    return appendMessage(next, context, { role: 'assistant', content: words, from: agent.id });
  }
  if (inbox.kind === 'workflow_answer' && inbox.said) next = appendMessage(next, context, { role: 'user', content: inbox.said, from: agent.id });
  return appendMessage(next, context, { role: 'user', content: words, from: agent.id });
}

/** Parsing tools of the agent that the state's conditions read (`function.X.`) but that its answer did not call. */
export function unreadTools(state: StatePlan, agent: AgentPlan, toolCalls: ToolCallRecord[]): string[] {
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
