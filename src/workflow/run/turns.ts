import type { MachineDefinition } from '../../engine/definition.js';
import type { ToolSpec } from '../../directive/tool.js';
import type { ChatMessage } from '../../llm/chat-model.js';
import type { TurnShaper } from '../../kernel/turn-shaper.js';
import { agentOf, planOf } from './frames.js';
import { ASK_USER_TOOL } from './constants.js';
import { verdictTool } from './debate.js';
import { inboxText } from './inbox.js';
import type { ToolCallRecord } from '../../engine/agent-reply.js';

/** The tool a role with request_users_input may call to ask the user a question. */
export const askUserTool: ToolSpec = {
  name: ASK_USER_TOOL,
  description: 'Ask the user a question and wait for the answer (it comes back as this tool\'s result). Use it only when you cannot go on without them.',
  parameters: { type: 'object', properties: { question: { type: 'string', description: 'The question, in one or two sentences' } }, required: ['question'] },
};

function parsedArguments(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    // Conditions read missing arguments as undefined; the raw text is kept for the transcript.
    return { _unparsed: raw };
  }
}

/**
 * Workflow turns: the agent's system message, its context as it sees it (mirrored for a `user` agent:
 * the others' user turns are its assistant turns and back), the state's input; its parsing tools (and
 * request_users_input) offered; its words and tool calls read back, not executed.
 */
export function workflowTurns(def: MachineDefinition): TurnShaper {
  return {
    request(call, session, agentState) {
      const root = def.workflow!;
      const frames = session.workflow?.frames ?? [];
      const frame = frames[frames.length - 1];
      const plan = frame ? planOf(root, frame) : root;
      const agent = agentOf(plan, agentState.id);
      const context = agent && frame ? (frame.contexts[agent.context] ?? []) : [];
      const mirror = agent?.role === 'user';
      // A branch or a debate turn stands on its own input; the context is the state's normal conversation.
      const own = call.branch !== undefined || frame?.phase === 'debate';
      const history: ChatMessage[] = (own ? [] : context).map((m) => ({
        role: m.role === 'system' ? 'system' : mirror ? (m.role === 'user' ? 'assistant' : 'user') : m.role,
        content: m.content,
      }));
      const inbox = call.inbox;
      // The user's answer goes back as the result of the agent's request_users_input call (seed 003).
      const closing: ChatMessage[] =
        inbox.kind === 'workflow_answer'
          ? [
              { role: 'assistant', content: '', toolCalls: [{ id: inbox.toolCallId, name: ASK_USER_TOOL, arguments: JSON.stringify({ question: inbox.question }) }] },
              { role: 'tool', toolCallId: inbox.toolCallId, name: ASK_USER_TOOL, content: inbox.text },
            ]
          : [{ role: 'user', content: inbox.kind === 'workflow' ? inboxText(inbox) : 'text' in inbox ? inbox.text : '' }];
      const debating = frame?.phase === 'debate';
      const tools: ToolSpec[] = debating ? [verdictTool] : [...(agent?.parsingTools ?? []), ...(agent?.requestUserInput && !call.branch ? [askUserTool] : [])];
      const agentTools = agent && agent.tools.length > 0 && !debating
        ? { tools: agent.tools, maxSteps: agent.maxToolSteps, commandPolicy: agent.commandPolicy ?? 'deny', workspace: call.branch ?? agent.id, reportChanges: call.branch !== undefined }
        : undefined;
      // A repair round forces the parsing tool the state's conditions read.
      const forced = call.repair && tools.some((t) => t.name === call.repair) ? { toolChoice: { name: call.repair } } : {};
      return {
        ...forced,
        ...(agentTools ? { agentTools } : {}),
        messages: [{ role: 'system', content: agent?.systemMessage ?? '' }, ...(agent?.examples ?? []), ...history, ...closing],
        tools,
        meta: { purpose: 'workflow', persona: agentState.id, personaName: agentState.name, inbox: inbox.kind, brief: session.brief, turnId: call.turnId, workflow: { name: plan.name, state: 'state' in inbox ? inbox.state : '', tools: tools.map((t) => t.name), round: (agent && frame?.agents[agent.id]?.turns) ?? 0 } },
      };
    },
    result(call, response) {
      const toolCalls: ToolCallRecord[] = response.toolCalls.map((c) => ({ ...(c.id ? { id: c.id } : {}), name: c.name, arguments: parsedArguments(c.arguments) }));
      return { type: 'agent_replied', turnId: call.turnId, text: response.text, toolCalls };
    },
  };
}
