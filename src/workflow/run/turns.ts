import type { MachineDefinition } from '../../engine/definition.js';
import type { ToolSpec } from '../../directive/tool.js';
import type { ChatMessage, ChatResponse } from '../../llm/chat-model.js';
import type { RawResponse } from '../../engine/evaluation.js';
import type { TurnShaper } from '../../kernel/turn-shaper.js';
import { agentOf, planOf, stateOf } from './frames.js';
import { ASK_USER_TOOL } from './constants.js';
import { verdictTool } from './debate.js';
import { inboxText } from './inbox.js';
import type { ToolCallRecord } from '../../engine/agent-reply.js';
import type { AgentCall } from '../../engine/moves.js';
import type { AgentPlan } from './plan.js';
import type { WorkflowMessage } from './state.js';
import { ContextViews } from './context-view.js';
import { jsonDepth, MAX_JSON_DEPTH } from '../sandbox/json-depth.js';
import { packedMap } from '../../engine/packed.js';

/** The tool a role with request_users_input may call to ask the user a question. */
export const askUserTool: ToolSpec = {
  name: ASK_USER_TOOL,
  description: "Ask the user a question and wait for the answer (it comes back as this tool's result). Use it only when you cannot go on without them.",
  parameters: { type: 'object', properties: { question: { type: 'string', description: 'The question, in one or two sentences' } }, required: ['question'] },
};

function parsedArguments(raw: string): unknown {
  if (raw.trim() === '') return {};
  // Nested past what workflow data may be, parsed arguments would overflow the stack of every recursive walk
  // after (the journal's JSON.stringify first): a model can send any text, so it is kept as text.
  if (jsonDepth(raw) > MAX_JSON_DEPTH) return { _unparsed: raw };
  try {
    return JSON.parse(raw);
  } catch {
    // Conditions read missing arguments as undefined; the raw text is kept for the transcript.
    return { _unparsed: raw };
  }
}

/** The answer as the chat-completions API gives it (what SynthDev's handlers read as this.last_response). */
export function rawOf(turnId: string, response: ChatResponse): RawResponse {
  return {
    content: response.text === '' && response.toolCalls.length > 0 ? null : response.text,
    tool_calls: packedMap(response.toolCalls, (c, i) => ({ id: c.id ?? `call_${turnId}_${i}`, name: c.name, arguments: c.arguments })),
    finish_reason: response.finishReason,
    model: response.model,
    usage: response.usage ? { prompt_tokens: response.usage.promptTokens, completion_tokens: response.usage.completionTokens } : null,
  };
}

/** The tools an agent is offered outside a debate: its parsing tools, and request_users_input on the main line. */
function offeredTools(agent: AgentPlan | undefined, inBranch: boolean): ToolSpec[] {
  return [...(agent?.parsingTools ?? []), ...(agent?.requestUserInput && !inBranch ? [askUserTool] : [])];
}

/** A tool choice forcing `wanted` when it is among the tools offered (nothing otherwise). */
function forcing(wanted: string | undefined, tools: readonly ToolSpec[]): { toolChoice?: { name: string } } {
  return wanted && tools.some((t) => t.name === wanted) ? { toolChoice: { name: wanted } } : {};
}

/** The agent's system message and its examples. */
function systemOf(agent: AgentPlan | undefined): ChatMessage[] {
  return [{ role: 'system', content: agent?.systemMessage ?? '' }, ...(agent?.examples ?? [])];
}

/** The messages after the context in a call that is not the plain next turn of a state's agent (inbox: its input). */
function closingOf(inbox: AgentCall['inbox'], owned: boolean): ChatMessage[] {
  // The user's answer goes back as the result of the agent's request_users_input call (seed 003), after
  // the one assistant message that made the call (its words and the call together).
  if (inbox.kind === 'workflow_answer') {
    return [
      ...(inbox.input !== undefined ? [{ role: 'user' as const, content: inbox.input }] : []),
      { role: 'assistant', content: inbox.said ?? '', toolCalls: [{ id: inbox.toolCallId, name: ASK_USER_TOOL, arguments: inbox.arguments ?? JSON.stringify({ question: inbox.question }) }] },
      { role: 'tool', toolCallId: inbox.toolCallId, name: ASK_USER_TOOL, content: inbox.text },
    ];
  }
  // Words the user typed while agents worked are not lost in a handler state: they follow its context.
  if (owned) return inbox.kind === 'workflow' && inbox.user !== undefined ? [{ role: 'user', content: inboxText({ text: '', user: inbox.user }) }] : [];
  return [{ role: 'user', content: inbox.kind === 'workflow' ? inboxText(inbox) : 'text' in inbox ? inbox.text : '' }];
}

/** The file and command tools of an agent that has them, for a call. */
function agentToolsOf(agent: AgentPlan, call: AgentCall) {
  return { tools: agent.tools, maxSteps: agent.maxToolSteps, commandPolicy: agent.commandPolicy ?? 'deny', workspace: call.branch ?? agent.id, reportChanges: call.branch !== undefined };
}

/**
 * Workflow turns: the agent's system message, its context as it sees it (mirrored for a `user` agent:
 * the others' user turns are its assistant turns and back), the state's input; its parsing tools (and
 * request_users_input) offered; its words and tool calls read back, not executed.
 */
export function workflowTurns(def: MachineDefinition): TurnShaper {
  // Each message is mapped once for the agents who see it alike (a context only grows between most requests).
  const views = new ContextViews();
  const seenBy = (agent: AgentPlan | undefined, context: readonly WorkflowMessage[]) => views.seenBy(agent?.role === 'user', context);
  return {
    request(call, session, agentState) {
      const root = def.workflow!;
      const frames = session.workflow?.frames ?? [];
      const frame = frames[frames.length - 1];
      const plan = frame ? planOf(root, frame) : root;
      const agent = agentOf(plan, agentState.id);
      const context = agent && frame ? (frame.contexts[agent.context] ?? []) : [];
      const inbox = call.inbox;
      // A branch or a debate turn stands on its own input; the context is the state's normal conversation.
      const own = call.branch !== undefined || frame?.phase === 'debate';
      // SynthDev's handler state: the call is the context as it is, with nothing added.
      const owned = !own && frame !== undefined && stateOf(plan, 'state' in inbox ? inbox.state : frame.state)?.owned === true;
      const history = own ? [] : seenBy(agent, context);
      const closing: ChatMessage[] = inbox.kind === 'workflow' && !owned ? [{ role: 'user', content: inboxText(inbox) }] : closingOf(inbox, owned);
      const debating = frame?.phase === 'debate';
      const tools: ToolSpec[] = debating ? [verdictTool] : offeredTools(agent, Boolean(call.branch));
      const agentTools = agent && agent.tools.length > 0 && !debating ? agentToolsOf(agent, call) : undefined;
      // A repair round forces the parsing tool the state's conditions read; SynthDev forces a role's only parsing-only tool in every call.
      const wanted = call.repair ?? (debating ? undefined : agent?.forcedTool);
      const forced = forcing(wanted, tools);
      const system = systemOf(agent);
      // SynthDev adds the role's system message (and examples) only when the context does not begin with a system message of its own.
      const head = owned && history[0]?.role === 'system' ? [] : system;
      return {
        ...forced,
        ...(agentTools ? { agentTools } : {}),
        // concat, not a spread: a spread walks the conversation one element at a time through the iterator in code V8
        // has not optimised yet (the largest self time of the first runs, measured with --cpu-prof).
        messages: head.concat(history, closing),
        tools,
        meta: {
          purpose: 'workflow',
          persona: agentState.id,
          personaName: agentState.name,
          inbox: inbox.kind,
          brief: session.brief,
          turnId: call.turnId,
          workflow: { name: plan.name, state: 'state' in inbox ? inbox.state : '', tools: tools.map((t) => t.name), round: (agent && frame?.agents[agent.id]?.turns) ?? 0 },
        },
      };
    },
    prefix(session, agentState) {
      const frame = session.workflow?.frames.at(-1);
      const agent = frame ? agentOf(planOf(def.workflow!, frame), agentState.id) : undefined;
      // Agents with file and command tools send their workspace's tool definitions too: not warmed.
      if (!frame || !agent || agent.tools.length > 0) return null;
      const tools = offeredTools(agent, false);
      return {
        ...forcing(agent.forcedTool, tools),
        // The context as it is now: the call the agent will get sends it with what is added meanwhile after it.
        messages: systemOf(agent).concat(seenBy(agent, frame.contexts[agent.context] ?? [])),
        tools,
        meta: { purpose: 'workflow', persona: agentState.id, personaName: agentState.name, inbox: 'workflow', brief: session.brief },
      };
    },
    result(call, response) {
      const toolCalls: ToolCallRecord[] = packedMap(response.toolCalls, (c) => ({ ...(c.id ? { id: c.id } : {}), name: c.name, arguments: parsedArguments(c.arguments) }));
      return { type: 'agent_replied', turnId: call.turnId, text: response.text, toolCalls, raw: rawOf(call.turnId, response) };
    },
  };
}
