import type { ChatModel, ChatRequest, ChatResponse, Usage } from './chat-model.js';
import { AbortedError } from './errors.js';
import { abortableSleep } from './sleep.js';
import { DIRECTIVE_TOOL_NAME } from '../directive/schema.js';

/** One scripted reply: text, a directive (sent as a tool call), raw tool calls, or an error. */
export interface ScriptStep {
  text?: string;
  directive?: Record<string, unknown>;
  toolCalls?: { name: string; arguments: string }[];
  error?: Error;
  delayMs?: number;
  usage?: Usage;
  finishReason?: string;
}

/** A step, or a function of the request returning one. */
export type ScriptEntry = ScriptStep | ((request: ChatRequest) => ScriptStep);

/** A test model that consumes one step per call, records every request and fails loudly when the script runs out. */
export class ScriptedModel implements ChatModel {
  readonly label = 'scripted model';
  readonly calls: ChatRequest[] = [];
  private next = 0;

  constructor(private readonly script: ScriptEntry[]) {}

  /** Steps not yet consumed. */
  get remaining(): number {
    return this.script.length - this.next;
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    this.calls.push(request);
    const entry = this.script[this.next];
    if (entry === undefined) {
      throw new Error(
        `ScriptedModel: script exhausted after ${this.script.length} step(s); unexpected call #${this.calls.length} for ${request.meta.persona ?? request.meta.purpose}`,
      );
    }
    this.next += 1;
    const step = typeof entry === 'function' ? entry(request) : entry;
    if (step.delayMs) await abortableSleep(step.delayMs, request.signal);
    if (request.signal?.aborted) throw new AbortedError('call aborted');
    if (step.error) throw step.error;
    const text = step.text ?? '';
    if (text && request.onDelta) request.onDelta({ type: 'text', text });
    const toolCalls = [
      ...(step.toolCalls ?? []),
      ...(step.directive ? [{ name: DIRECTIVE_TOOL_NAME, arguments: JSON.stringify(step.directive) }] : []),
    ];
    return { text, toolCalls, usage: step.usage ?? null, finishReason: step.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'), model: request.model };
  }
}
