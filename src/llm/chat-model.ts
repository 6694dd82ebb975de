import type { ToolChoice, ToolSpec } from '../directive/tool.js';

/** A tool call a model made: its id (ties the `tool` message answering it), the tool's name and its raw JSON arguments. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * A chat message in the provider-neutral shape troupe builds prompts in. Every kind has `content`
 * (text, possibly empty), so code that only reads text needs no narrowing; an assistant message may
 * carry the tool calls it made, and a `tool` message answers one of them by id.
 */
export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

/** A tool message: the result of one tool call, sent back to the model. */
export type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

export type { ToolChoice };

/** A streamed piece of a response. */
export type ChatDelta = { type: 'text'; text: string } | { type: 'tool_arguments'; index: number; name?: string; text: string };

/** What troupe tells a model about a call; adapters may ignore it, the demo model reads it. */
export interface CallMeta {
  /** What the call is for; a `warming` call only fills the server's prompt cache ahead of a persona's turn (its answer is dropped). */
  purpose: 'persona' | 'summary' | 'workflow' | 'warming';
  persona?: string;
  /** Workflow calls: the workflow and state the agent answers in, and the parsing tools it was offered. */
  workflow?: { name: string; state: string; tools: string[]; round: number };
  personaName?: string;
  inbox?: string;
  brief?: string;
  turnId?: string;
  /** Persona ids this persona may hand to, in roster order. */
  handoffTo?: string[];
}

/** One model call. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** Whether the model must call a tool: 'auto' (default), 'required' (any), 'none', or one tool by name (a repair round). */
  toolChoice?: ToolChoice;
  /** Ask for a JSON object in the text instead of tools (servers without tool calling). */
  jsonMode?: boolean;
  /** At most this many output tokens (`max_completion_tokens`); absent: the server's default. */
  maxCompletionTokens?: number;
  signal?: AbortSignal;
  meta: CallMeta;
  /** Called with each streamed delta when the model streams. */
  onDelta?: (delta: ChatDelta) => void;
  /** Told before each retry's wait, so the runtime can show it (models that never retry ignore it). */
  onRetry?: (info: RetryInfo) => void;
}

/** A retry about to happen: its number (1 = first retry), the wait before it, and the failure that caused it. */
export interface RetryInfo {
  attempt: number;
  waitMs: number;
  reason: string;
}

/** Token usage reported by the server. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens served from the provider's prompt cache (`prompt_tokens_details.cached_tokens`); absent when the server does not say. */
  cachedTokens?: number;
}

/** A complete model response. */
export interface ChatResponse {
  text: string;
  toolCalls: { id?: string; name: string; arguments: string }[];
  usage: Usage | null;
  finishReason: string | null;
  model: string;
}

/** The narrow interface the orchestrator talks to; it never imports an HTTP client. */
export interface ChatModel {
  /** Shown in the header and transcript, e.g. "openai gpt-4o" or "demo model (offline)". */
  readonly label: string;
  /** True for models that need no server (the demo model, replays). */
  readonly offline?: boolean;
  /** True when calls cost nothing (the demo model): usage is metered without a price. */
  readonly free?: boolean;
  /**
   * The model that answers every call, whatever model id the call names (the demo model: "demo"); absent
   * when the server answers as the call names. Events name the model that answers (agent_started, usage).
   */
  readonly answeredBy?: string;
  generate(request: ChatRequest): Promise<ChatResponse>;
  /** Loads what the first call needs (an SDK) ahead of it, in the background; the first call loads it otherwise. */
  preload?(): Promise<void>;
}
