import type { AgentState } from '../engine/definition.js';
import type { EngineInput } from '../engine/input-events.js';
import type { AgentCall } from '../engine/moves.js';
import type { SessionState } from '../engine/session.js';
import type { ToolSpec } from '../directive/tool.js';
import type { CallMeta, ChatMessage, ChatResponse, ToolChoice } from '../llm/chat-model.js';

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
  /** The head of the request a call of this agent would send now, without what gives it the turn (for cache warming); absent or null: none. */
  prefix?(session: SessionState, agent: AgentState): TurnRequest | null;
}
