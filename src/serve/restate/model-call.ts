import type { ChatModel, ChatRequest, RetryInfo } from '../../llm/chat-model.js';
import type { CallOutcome, ModelCall } from './records.js';

/** Picks the model for one call (a worker on the demo model continues the session's story). */
export type ModelChooser = (call: ModelCall) => ChatModel;

/**
 * Runs one model call to its outcome; never throws, so a failing model becomes an `agent_failed` input
 * (as in the embedded runtime) instead of a Restate retry. Only a crash of the worker makes Restate run it again.
 */
export async function runModelCall(choose: ModelChooser, call: ModelCall, clock: () => number = Date.now): Promise<CallOutcome> {
  const retries: RetryInfo[] = [];
  const controller = new AbortController();
  const { timeoutMs } = call.call;
  const timer = timeoutMs !== undefined ? setTimeout(() => controller.abort(), timeoutMs) : null;
  try {
    const model = choose(call);
    const request: ChatRequest = {
      model: call.model,
      messages: call.messages,
      tools: call.tools,
      ...(call.toolChoice ? { toolChoice: call.toolChoice } : {}),
      meta: call.meta as unknown as ChatRequest['meta'],
      signal: controller.signal,
      onRetry: (info) => retries.push({ attempt: info.attempt, waitMs: info.waitMs, reason: info.reason }),
    };
    const response = await model.generate(request);
    if (controller.signal.aborted) return { ok: false, reason: `timed out after ${timeoutMs} ms`, retries, at: clock() };
    return { ok: true, response, free: model.free === true, retries, at: clock() };
  } catch (error) {
    if (controller.signal.aborted) return { ok: false, reason: `timed out after ${timeoutMs} ms`, retries, at: clock() };
    return { ok: false, reason: error instanceof Error ? error.message.split('\n')[0]! : String(error), retries, at: clock() };
  } finally {
    if (timer) clearTimeout(timer);
  }
}
