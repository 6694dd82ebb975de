import type { WarmingSettings } from '../config/team-schema.js';
import { event, type EngineEvent } from '../engine/event-map.js';
import type { AgentCall } from '../engine/moves.js';
import type { WarmingPort } from '../kernel/effect-runner.js';
import type { ChatRequest, Usage } from '../llm/chat-model.js';
import { AbortedError } from '../llm/errors.js';
import { promptTokens } from '../memory/tokens.js';
import type { PriceTable } from '../usage/price-table.js';
import type {} from './events.js';
import { WarmingLedger } from './ledger.js';

/** A warming request that streams more than this many characters was not cut at one token by its server: it is stopped. */
const RUNAWAY_CHARS = 64;
const RUNAWAY = 'the server ignored max_completion_tokens';
/** After this many failed warming requests in a row, the session stops warming (the server does not take them). */
const FAILURES_MAX = 3;
// Tokens of the directive tool's definition, which the server counts into every prompt (an estimate, rounded up).
const TOOL_TOKENS = 400;

/** What warming requests need from their session. */
export interface WarmingRequestsOptions {
  settings: Pick<WarmingSettings, 'max_share' | 'max_tokens'>;
  publish: (e: EngineEvent) => void;
  /** The session's model: no warming requests for one that needs no server (the demo, replays). */
  model: { readonly offline?: boolean; readonly free?: boolean };
  /** True once the server has served cached prompt tokens for a call of the session (only then can warming help). */
  cacheReported: () => boolean;
  /** Prompt tokens of the session's own calls so far (the budget's base). */
  ownPromptTokens: () => number;
  prices: PriceTable;
}

/**
 * A session's cache-warming requests: whether they may go out (a server with a prompt cache, not a run of
 * failures, within the budget), each one sent through the effect runner's port, followed until it is
 * answered or aborted, and published with its usage as a `warming` event, counted apart from the session's
 * own calls.
 */
export class WarmingRequests {
  readonly ledger: WarmingLedger;
  /** Requests in flight, by persona. */
  private readonly inFlight = new Map<string, AbortController>();
  private readonly abortReasons = new WeakMap<AbortController, string>();
  private failures = 0;
  private readonly told = new Set<string>();

  constructor(private readonly options: WarmingRequestsOptions) {
    this.ledger = new WarmingLedger(options.settings, options.prices);
  }

  /** Whether warming requests may go out at all now (a server that has served cached tokens, no run of failures). */
  maySend(): boolean {
    const { model } = this.options;
    return !model.offline && !model.free && this.failures < FAILURES_MAX && this.options.cacheReported();
  }

  /** Sends one warming request within the budget, and publishes what it used (a `warming` event); resolves when it is over. */
  async send(call: AgentCall, persona: string, request: ChatRequest, port: WarmingPort): Promise<void> {
    const estimate = promptTokens(request.messages) + (request.tools?.length ? TOOL_TOKENS : 0);
    const refused = this.ledger.refuses(estimate, this.options.ownPromptTokens());
    // Past max_share warming waits for the session's own calls to catch up; max_tokens is spent for good.
    if (refused === 'max_tokens')
      this.tellOnce('budget', `warming stopped: its budget of ${this.options.settings.max_tokens!.toLocaleString('en-US')} prompt tokens is spent (team.json warming.max_tokens)`);
    if (refused) return;
    const controller = new AbortController();
    this.inFlight.set(persona, controller);
    let streamed = 0;
    let why: string | undefined;
    const stop = (reason: string) => {
      why ??= reason;
      controller.abort();
    };
    const onDelta = (d: { text: string }) => {
      streamed += d.text.length;
      if (streamed > RUNAWAY_CHARS) stop(RUNAWAY);
    };
    let usage: Usage | null = null;
    let status: 'done' | 'aborted' | 'failed' = 'done';
    try {
      const response = await port.send({ ...request, signal: controller.signal, onDelta });
      usage = response.usage;
      this.failures = 0;
    } catch (error) {
      status = error instanceof AbortedError || controller.signal.aborted ? 'aborted' : 'failed';
      if (status === 'failed') {
        this.failures += 1;
        why = error instanceof Error ? error.message.split('\n')[0]! : String(error);
        if (this.failures >= FAILURES_MAX) this.tellOnce('failures', `warming stopped: ${FAILURES_MAX} warming requests in a row failed (${why})`);
      } else why ??= this.abortReasons.get(controller) ?? 'aborted';
    } finally {
      if (this.inFlight.get(persona) === controller) this.inFlight.delete(persona);
    }
    if (why === RUNAWAY) {
      this.failures = FAILURES_MAX;
      this.tellOnce('failures', `warming stopped: ${RUNAWAY} (a warming request asks for one output token)`);
    }
    const record = this.ledger.record(request.model, usage, estimate, status);
    this.options.publish(
      event('warming', {
        turn_id: call.turnId,
        persona,
        model: request.model,
        status,
        ...(why !== undefined ? { reason: why } : {}),
        prompt_tokens: record.promptTokens,
        ...(usage?.cachedTokens !== undefined ? { cached_tokens: usage.cachedTokens } : {}),
        completion_tokens: usage?.completionTokens ?? 0,
        cost: record.cost,
        total_requests: record.totals.requests,
        total_prompt_tokens: record.totals.promptTokens,
        total_cost: this.ledger.totalCost,
      }),
    );
  }

  /** Aborts the warming requests in flight for the personas `which` picks. */
  abort(reason: string, which: (persona: string) => boolean): void {
    for (const [persona, controller] of this.inFlight) {
      if (!which(persona)) continue;
      this.abortReasons.set(controller, reason);
      controller.abort();
      this.inFlight.delete(persona);
    }
  }

  private tellOnce(key: string, text: string): void {
    if (this.told.has(key)) return;
    this.told.add(key);
    this.options.publish(event('note', { text }));
  }
}
