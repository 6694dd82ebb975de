import type { ChatDelta, ChatResponse, Usage } from './chat-model.js';
import { LIMITS, ModelOutputTooLargeError } from './limits.js';

type ToolCallParts = { id?: string; name: string; arguments: string };

// Loose views of what OpenAI-compatible servers send: every field may be missing or null.
type LooseToolDelta = { index?: number | null; id?: string | null; function?: { name?: string | null; arguments?: string | null } | null };
type LooseChoice = { index?: number | null; delta?: { content?: string | null; tool_calls?: LooseToolDelta[] | null } | null; finish_reason?: string | null };
type LooseUsage = { prompt_tokens?: number | null; completion_tokens?: number | null; prompt_tokens_details?: { cached_tokens?: number | null } | null };
type LooseChunk = { model?: string | null; choices?: LooseChoice[] | null; usage?: LooseUsage | null };

/** Usage from a server's `usage` object, with cached prompt tokens when it reports them. */
export function usageFrom(raw: LooseUsage): Usage {
  const cached = raw.prompt_tokens_details?.cached_tokens;
  return { promptTokens: raw.prompt_tokens ?? 0, completionTokens: raw.completion_tokens ?? 0, ...(typeof cached === 'number' ? { cachedTokens: cached } : {}) };
}

/** Builds a ChatResponse from streamed chunks, forwarding text and tool-argument deltas as they arrive. */
export class StreamAssembler {
  private text = '';
  private readonly calls = new Map<number, ToolCallParts>();
  private usage: Usage | null = null;
  private finishReason: string | null = null;
  private model: string | null = null;
  /** True once any choice arrived (a stream of only usage chunks had no answer). */
  sawChoice = false;
  /** Deltas forwarded to the caller so far. */
  delivered = 0;
  /** Characters of text and tool arguments received so far. */
  private size = 0;

  /** `host` names the server in the error when an answer passes LIMITS.modelOutput (`maxChars`, for tests). */
  constructor(
    private readonly onDelta?: (delta: ChatDelta) => void,
    private readonly host = '',
    private readonly maxChars: number = LIMITS.modelOutput,
  ) {}

  /** Counts received characters; past the cap the stream is given up, before the piece is kept or shown. */
  private grow(piece: string): void {
    this.size += piece.length;
    if (this.size > this.maxChars) throw new ModelOutputTooLargeError(this.host);
  }

  /** Folds one chunk in; tolerant of missing fields, never throws on odd shapes (only on an answer past the size cap). */
  push(raw: unknown): void {
    if (!raw || typeof raw !== 'object') return;
    const chunk = raw as LooseChunk;
    if (typeof chunk.model === 'string' && chunk.model) this.model = chunk.model;
    if (chunk.usage && typeof chunk.usage.prompt_tokens === 'number') this.usage = usageFrom(chunk.usage);
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      if ((choice?.index ?? 0) !== 0) continue;
      this.sawChoice = true;
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
      const content = choice.delta?.content;
      if (typeof content === 'string' && content !== '') {
        this.grow(content);
        this.text += content;
        this.emit({ type: 'text', text: content });
      }
      for (const [position, part] of (choice.delta?.tool_calls ?? []).entries()) this.pushToolDelta(part, position);
    }
  }

  private pushToolDelta(part: LooseToolDelta, position: number): void {
    const index = typeof part?.index === 'number' ? part.index : position;
    let call = this.calls.get(index);
    if (!call) {
      call = { name: '', arguments: '' };
      this.calls.set(index, call);
    }
    if (part.id) call.id = part.id;
    const name = part.function?.name;
    if (name) call.name = call.name && call.name !== name ? call.name + name : name;
    const args = part.function?.arguments;
    if (typeof args === 'string' && args !== '') {
      this.grow(args);
      call.arguments += args;
      this.emit({ type: 'tool_arguments', index, ...(call.name ? { name: call.name } : {}), text: args });
    }
  }

  private emit(delta: ChatDelta): void {
    this.delivered += 1;
    this.onDelta?.(delta);
  }

  /** The assembled response; a call that came without a name but with arguments gets `soleTool` (the only tool offered). */
  result(requestedModel: string, soleTool?: string): ChatResponse {
    const toolCalls = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => (c.name === '' && soleTool && c.arguments !== '' ? { ...c, name: soleTool } : c))
      .filter((c) => c.name !== '')
      .map((c) => ({ ...(c.id ? { id: c.id } : {}), name: c.name, arguments: c.arguments }));
    return { text: this.text, toolCalls, usage: this.usage, finishReason: this.finishReason, model: this.model ?? requestedModel };
  }
}
