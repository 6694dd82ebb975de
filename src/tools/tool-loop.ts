import type { ChatMessage, ChatModel, ChatRequest, ChatResponse, ToolCall, Usage } from '../llm/chat-model.js';
import { AbortedError } from '../llm/errors.js';
import { TroupeError } from '../errors.js';
import type { ToolOutcome, Toolset } from './toolset.js';
import { sumUsage } from './usage-sum.js';

/** A tool call starting or finished (the runtime publishes it as a `tool_call` event). */
export interface ToolEvent {
  phase: 'started' | 'finished';
  tool: string;
  summary: string;
  callId: string;
  ok?: boolean;
  detail?: string;
}

/** One tool call the loop ran (or answered with an error: unknown tool, out of steps). */
export interface ToolStep {
  call: ToolCall;
  outcome: ToolOutcome;
}

/** What runToolLoop needs: the model, the turn's request (its own tools are the engine's parsing tools), the toolset, the step budget. */
export interface ToolLoopOptions {
  model: ChatModel;
  request: ChatRequest;
  toolset: Toolset;
  /** Most tool calls in the turn; then one last call without the toolset. */
  maxSteps: number;
  onTool?: (event: ToolEvent) => void;
}

/** Why the loop ended: the model answered, it called one of the request's own tools, or the steps ran out. */
export type ToolLoopStop = 'answered' | 'own_tool' | 'max_steps';

/** The loop's outcome: the final response (usage summed over every call), the messages in between, the tool steps. */
export interface ToolLoopResult {
  /** The last response; its `toolCalls` hold only calls to the request's own tools, its `usage` the sum of all calls. */
  response: ChatResponse;
  /**
   * Messages after the request's: assistant tool calls and their results, and the out-of-steps note if
   * it was sent. Every assistant message in it is answered by its tool messages, so it can be sent again
   * as it is. The final answer is `response`, not in here (when its own-tool calls came with agent-tool
   * calls, its text is already the last assistant message's).
   */
  transcript: ChatMessage[];
  steps: ToolStep[];
  stop: ToolLoopStop;
  /** Model calls made. */
  calls: number;
}

/** The note sent with the last call once the steps are used up. */
export function outOfStepsNote(maxSteps: number, ownTools: string[]): string {
  const finish = ownTools.length ? ` and call ${ownTools.join(' or ')}` : '';
  return `You have used all ${maxSteps} tool steps of this turn; no more file or command tools will run. Give your final answer now${finish}.`;
}

const abortIf = (signal: AbortSignal | undefined) => {
  if (signal?.aborted) throw new AbortedError('call aborted');
};

/**
 * Runs a model turn with agent tools. Each round the model sees the request's own tools and the
 * toolset's; calls to toolset tools run one after another, the assistant message with its calls and
 * one `tool` message per call are appended, and the model is called again. The loop ends when:
 * - the model answers without a tool call (`answered`);
 * - it calls one of the request's own tools, e.g. review_work or handoff_directive (`own_tool`):
 *   toolset calls in that same answer still run (their effects were meant), then the loop returns
 *   the response with only the own-tool calls, for the engine to read;
 * - `maxSteps` tool calls have run (`max_steps`): one last call goes out with only the request's own
 *   tools and a note that the steps are used up; whatever it answers is final (toolset calls in it are dropped).
 * A call to a tool in neither set gets an error result the model reads, and counts as a step.
 * Usage of every call is summed into the response. The loop meters nothing itself: given the
 * session's MeteredModel, each call is metered once as it happens, so the summed usage is for
 * reporting, not for the meter again. The request's signal aborts between and during tool runs.
 */
export async function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopResult> {
  const { model, request, toolset, maxSteps, onTool } = options;
  const own = request.tools ?? [];
  const ownNames = new Set(own.map((t) => t.name));
  const clash = toolset.specs.find((s) => ownNames.has(s.name));
  if (clash) throw new TroupeError(`tool "${clash.name}" is both a request tool and an agent tool; rename one`);
  const offered = [...own, ...toolset.specs];
  const transcript: ChatMessage[] = [];
  const steps: ToolStep[] = [];
  const usages: (Usage | null)[] = [];
  let calls = 0;

  const finish = (response: ChatResponse, kept: ToolCall[], stop: ToolLoopStop): ToolLoopResult => ({
    response: { ...response, toolCalls: kept, usage: sumUsage(usages) },
    transcript,
    steps,
    stop,
    calls,
  });

  for (;;) {
    abortIf(request.signal);
    const last = steps.length >= maxSteps;
    // With no steps at all (maxSteps 0) the one call is a plain turn: there is nothing to say about steps.
    const note: ChatMessage[] = last && maxSteps > 0 ? [{ role: 'user', content: outOfStepsNote(maxSteps, [...ownNames]) }] : [];
    if (last) transcript.push(...note);
    const { toolChoice, tools: _tools, ...base } = request;
    const sent: ChatRequest = {
      ...base,
      messages: [...request.messages, ...transcript],
      ...(last ? (own.length ? { tools: own } : {}) : { tools: offered }),
      ...(toolChoice && (!last || own.length) ? { toolChoice } : {}),
    };
    const response = await model.generate(sent);
    calls += 1;
    usages.push(response.usage);
    const round: ToolCall[] = response.toolCalls.map((c, i) => ({ id: c.id ?? `call_${calls}_${i + 1}`, name: c.name, arguments: c.arguments }));
    const ownCalls = round.filter((c) => ownNames.has(c.name));
    if (last) return finish(response, ownCalls, 'max_steps');
    const work = round.filter((c) => !ownNames.has(c.name));
    if (work.length === 0) return finish(response, ownCalls, ownCalls.length ? 'own_tool' : 'answered');

    transcript.push({ role: 'assistant', content: response.text, toolCalls: work });
    for (const call of work) {
      abortIf(request.signal);
      const outcome = steps.length >= maxSteps ? outOfSteps(call, maxSteps) : await runOne(toolset, call, request.signal, onTool);
      abortIf(request.signal);
      steps.push({ call, outcome });
      transcript.push({ role: 'tool', toolCallId: call.id, name: call.name, content: outcome.content });
    }
    if (ownCalls.length) return finish(response, ownCalls, 'own_tool');
  }
}

/** The error result for a call past the step budget (the model must get a result for every call it made). */
function outOfSteps(call: ToolCall, maxSteps: number): ToolOutcome {
  return { ok: false, content: `Error: not run: the ${maxSteps} tool steps of this turn are used up`, tool: call.name, summary: call.name };
}

/** Runs one toolset call (an unknown name gets the toolset's error result), telling `onTool` before and after. */
async function runOne(toolset: Toolset, call: ToolCall, signal: AbortSignal | undefined, onTool: ToolLoopOptions['onTool']): Promise<ToolOutcome> {
  const summary = toolset.summarize(call);
  onTool?.({ phase: 'started', tool: call.name, summary, callId: call.id });
  const outcome = await toolset.run(call, signal);
  onTool?.({
    phase: 'finished',
    tool: call.name,
    summary,
    callId: call.id,
    ok: outcome.ok,
    ...(outcome.detail !== undefined
      ? { detail: outcome.detail }
      : outcome.ok
        ? {}
        : {
            detail: outcome.content
              .replace(/^Error: /, '')
              .split('\n')[0]!
              .slice(0, 200),
          }),
  });
  return outcome;
}
