import type { AgentState, MachineDefinition } from '../engine/definition.js';
import type { EngineInput } from '../engine/input-events.js';
import type { AgentCall } from '../engine/moves.js';
import type { SessionState } from '../engine/session.js';
import { parseDirective, stripDirectiveJson } from '../directive/parse.js';
import { directiveToolRequest, type ToolSpec } from '../directive/tool.js';
import type { CallMeta, ChatMessage, ChatResponse, ToolChoice } from '../llm/chat-model.js';
import type { PromptBuilder } from '../memory/prompt-builder.js';

/** The agent tools a turn runs with: which ones, how many steps, which commands, and the workspace they are confined to. */
export interface AgentTools {
  tools: string[];
  maxSteps: number;
  commandPolicy: 'deny' | 'ask' | { allow: string[]; network?: boolean };
  /** The workspace's name within the session (a branch id, or the agent's id). */
  workspace: string;
  /** The workspace's changes go back with the answer (a branch's implementation, for its reviewers). */
  reportChanges: boolean;
}

/** What a model call for an agent turn sends: the messages, the tools offered, and what troupe tells the model about it. */
export interface TurnRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
  toolChoice?: ToolChoice;
  meta: CallMeta;
  /** Agent tools (file, command) the turn may use in a tool loop; absent: one plain call. */
  agentTools?: AgentTools;
}

/** How a definition's agent turns are asked and read: teams with directives, workflows with their contexts and parsing tools. */
export interface TurnShaper {
  request(call: AgentCall, session: SessionState, agent: AgentState): TurnRequest;
  /** The engine input a model's answer becomes. */
  result(call: AgentCall, response: ChatResponse): EngineInput;
}

/** Team turns: the prompt builder's messages, the handoff directive tool, the directive parsed from the answer. */
export function teamTurns(def: MachineDefinition, prompt: PromptBuilder, prompts: Record<string, string>): TurnShaper {
  return {
    request(call, session, persona) {
      const messages = prompt.build({ def, session, call, persona, personaPrompt: prompts[persona.id] ?? '' });
      const allowed = def.agents.filter((a) => a.id !== persona.id && (!persona.allowed || persona.allowed.has(a.id))).map((a) => a.id);
      return {
        messages,
        ...directiveToolRequest(call),
        meta: { purpose: 'persona', persona: persona.id, personaName: persona.name, inbox: call.inbox.kind, brief: session.brief, turnId: call.turnId, handoffTo: allowed },
      };
    },
    result(call, response) {
      const directive = parseDirective(response);
      const text = directive.ok && directive.source === 'text' ? stripDirectiveJson(response.text) : response.text;
      return { type: 'agent_completed', turnId: call.turnId, text, directive };
    },
  };
}
