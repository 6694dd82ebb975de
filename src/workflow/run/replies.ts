import { awaitUser, countVisit, emit, note, startCall, type StepContext } from '../../engine/context.js';
import { event } from '../../engine/event-map.js';
import { current, legacyRun, runOf, setFrame, update } from './access.js';
import { agentOf, appendMessage as append, contextOf } from './frames.js';
import type { Changes, ToolCallRecord } from '../../engine/agent-reply.js';
import { branchFinished, branchOf } from './fanout.js';
import { debateCallOf, debateTurnDone } from './debate.js';
import type { AgentPlan, ContextPlan, StatePlan } from './plan.js';
import type { Frame } from './state.js';
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
  const s = ctx.s;
  const call = s.inFlight;
  // Call ids are unique (one counter): the call in flight is no branch's and no independent review's, which are looked up only when it is not that.
  if (!call || call.turnId !== turnId) return onBesideReply(ctx, turnId, words, toolCalls, changes, raw);
  s.inFlight = null;
  s.turn += 1;
  countVisit(ctx, call.path);
  emit(ctx, event('agent_message', { turn_id: turnId, path: call.path, persona: call.persona, text: words, turn: s.turn }));
  const { frame, plan, state } = current(ctx);
  const agent = agentOf(plan, call.persona)!;
  // The debate's turns and an agent asking the user (request_users_input) are rare: out of line, so the main line
  // (the state's agent answered) stays small enough for V8 to optimise early and inline (the whole was 1.4 KB of bytecode).
  if (frame.phase === 'debate' || (agent.requestUserInput && toolCalls.some(isAsk))) return onRarerReply(ctx, call, frame, agent, state, turnId, words, toolCalls, raw);
  // SynthDev's handler states: the handlers own the context, the answer is not added to it. Otherwise the
  // context is kept as its `assistant` agents see it: their input and words as user and assistant; a
  // `user` agent's words are what the user says in it.
  const next = state?.owned ? frame : appendTurn(frame, contextOf(plan, agent.context)!, agent, call.inbox, words, legacyRun(ctx));
  const answered = answeredFrame(next, agent, words, toolCalls, raw);
  const missing = state ? unreadTools(state, agent, toolCalls) : NONE;
  if (missing.length > 0) {
    setFrame(ctx, answered);
    return repair(ctx, call, frame, agent, missing);
  }
  answered.phase = 'after';
  setFrame(ctx, answered);
  advance(ctx);
}

/** A branch's answer, or a reviewer's independent review (calls that run beside the one in flight); any other is not waited for. */
function onBesideReply(ctx: StepContext, turnId: string, words: string, toolCalls: ToolCallRecord[], changes?: Changes, raw?: RawResponse): void {
  const branch = branchOf(ctx, turnId);
  if (branch) return onBranch(ctx, branch, turnId, { ok: true, text: words, toolCalls, ...(changes ? { changes } : {}) });
  const reviewer = debateCallOf(ctx, turnId);
  if (reviewer !== null) return onIndependentReview(ctx, reviewer, turnId, words, toolCalls, raw);
}

const isAsk = (c: ToolCallRecord) => c.name === ASK_USER_TOOL;
const NONE: readonly string[] = [];

// The frame after an agent's answer: its answer recorded (a new frame: the step changes it no further than its phase).
function answeredFrame(frame: Frame, agent: AgentPlan, words: string, toolCalls: ToolCallRecord[], raw: RawResponse | undefined): Frame {
  const record = { response: words, toolCalls, turns: (frame.agents[agent.id]?.turns ?? 0) + 1, ...(raw ? { raw } : {}) };
  return { ...frame, agents: { ...frame.agents, [agent.id]: record }, lastAgent: agent.id };
}

/** A debate's turn, or an agent that asked the user, answered. */
function onRarerReply(
  ctx: StepContext,
  call: AgentCall,
  frame: Frame,
  agent: AgentPlan,
  state: StatePlan | undefined,
  turnId: string,
  words: string,
  toolCalls: ToolCallRecord[],
  raw?: RawResponse,
): void {
  const next = answeredFrame(frame, agent, words, toolCalls, raw);
  if (frame.phase === 'debate') {
    setFrame(ctx, next);
    if (debateTurnDone(ctx, current(ctx).state!.debate!, words, toolCalls).kind === 'wait') return;
    update(ctx, { phase: 'after' });
    if (deliverDeferred(ctx)) return;
    return advance(ctx);
  }
  // An agent that asks the user has its words added once the answer came (the question and answer travel as its tool call and the tool's result).
  const ask = toolCalls.find(isAsk)!;
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
}

/** The answer did not call a parsing tool the state's conditions read: one repair round forcing it (as a directive's repair), else the state fails. */
function repair(ctx: StepContext, call: AgentCall, frame: Frame, agent: AgentPlan, missing: readonly string[]): void {
  const wanted = missing.join(' or ');
  // Conditions that read it would otherwise silently fail.
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
  fail(ctx, `${agent.name} did not call ${wanted}, which the conditions of ${frame.state} read (asked twice)`);
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
  if (agent.role === 'assistant') {
    if (inbox.kind === 'workflow') next = append(next, context, { role: 'user', content: inboxText(inbox), from: 'workflow' }, legacy);
    if (inbox.kind === 'workflow_answer') {
      // The turn that asked: its input (held back while the user was asked) and its words, then the answer.
      if (inbox.input !== undefined) next = append(next, context, { role: 'user', content: inbox.input, from: 'workflow' }, legacy);
      if (inbox.said) next = append(next, context, { role: 'assistant', content: inbox.said, from: agent.id }, legacy);
      next = append(next, context, { role: 'user', content: `(the user answered "${inbox.question}": ${inbox.text})`, from: 'user' }, legacy);
    }
    return append(next, context, { role: 'assistant', content: words, from: agent.id }, legacy);
  }
  if (inbox.kind === 'workflow_answer' && inbox.said) next = append(next, context, { role: 'user', content: inbox.said, from: agent.id }, legacy);
  return append(next, context, { role: 'user', content: words, from: agent.id }, legacy);
}

/** Parsing tools of the agent that the state's conditions read (`function.X.`) but that its answer did not call (a shared list: read it, never change it). */
export function unreadTools(state: StatePlan, agent: AgentPlan, toolCalls: ToolCallRecord[]): readonly string[] {
  const read = toolsRead(state, agent);
  if (read.length === 0) return NONE;
  for (const c of toolCalls) if (read.includes(c.name)) return NONE;
  return read;
}

// The parsing tools a state's conditions read, per state and agent (plan objects, never changed): found once, not
// by a regular expression over every condition at each answer.
const readBy = new WeakMap<StatePlan, WeakMap<AgentPlan, string[]>>();

function toolsRead(state: StatePlan, agent: AgentPlan): string[] {
  let byAgent = readBy.get(state);
  if (!byAgent) {
    byAgent = new WeakMap();
    readBy.set(state, byAgent);
  }
  let read = byAgent.get(agent);
  if (!read) {
    read = findToolsRead(state, agent);
    byAgent.set(agent, read);
  }
  return read;
}

function findToolsRead(state: StatePlan, agent: AgentPlan): string[] {
  const offered = new Set(agent.parsingTools.map((t) => t.name));
  const read = new Set<string>();
  for (const t of state.transitions) {
    for (const code of [t.condition, t.before]) {
      if (code && code.kind !== 'handler') for (const m of code.source.matchAll(/\bfunction\s*\.\s*([A-Za-z_$][\w$]*)\s*\./g)) if (offered.has(m[1]!)) read.add(m[1]!);
    }
  }
  return [...read];
}
