import type { WarmingSettings } from '../config/team-schema.js';
import type { AgentState, MachineDefinition } from '../engine/definition.js';
import { event, type EngineEvent, type TroupeEvent } from '../engine/event-map.js';
import type { AgentCall } from '../engine/moves.js';
import type { SessionState } from '../engine/session.js';
import type { CallWarming, WarmingPort } from '../kernel/effect-runner.js';
import type { ChatRequest, Usage } from '../llm/chat-model.js';
import { AbortedError } from '../llm/errors.js';
import { promptTokens } from '../memory/tokens.js';
import type { PriceTable } from '../usage/price-table.js';
import type {} from './events.js';
import { WarmingLedger, type WarmingTotals } from './ledger.js';
import { predictNext, type Prediction } from './predict.js';
import { TransitionCounts } from './transitions.js';

/** A warming request that streams more than this many characters was not cut at one token by its server: it is stopped. */
const RUNAWAY_CHARS = 64;
const RUNAWAY = 'the server ignored max_completion_tokens';
/** Characters of an answer after which the next persona is predicted again, on what the persona has said. */
export const REVISE_AT = 300;
/** After this many failed warming requests in a row, the session stops warming (the server does not take them). */
const FAILURES_MAX = 3;
// Tokens of the directive tool's definition, which the server counts into every prompt (an estimate, rounded up).
const TOOL_TOKENS = 400;

/** The turn being answered, as warming follows it. */
interface Turn {
  call: AgentCall;
  agent: AgentState;
  snapshot: SessionState;
  port: WarmingPort;
  /** What the persona has said so far (collected until predicted on). */
  answer: string;
  /** True once predicted on the message it answers, and once predicted on its answer. */
  predicted: boolean;
  revised: boolean;
  /** A prediction is waiting to run. */
  scheduled: boolean;
  /** Personas whose prompt was warmed in this turn. */
  warmed: Set<string>;
}

/** What a session's warming needs: its settings, where facts go, and what it reads of the session and its meter. */
export interface SessionWarmingOptions {
  def: MachineDefinition;
  settings: WarmingSettings;
  publish: (e: EngineEvent) => void;
  /** Model id of a persona. */
  modelFor: (persona: string) => string;
  /** The session's model: no warming requests for one that needs no server (the demo, replays). */
  model: { readonly offline?: boolean; readonly free?: boolean };
  /** True once the server has reported cached prompt tokens for a call of the session (only then can warming help). */
  cacheReported: () => boolean;
  /** Prompt tokens of the session's own calls so far (the budget's base). */
  ownPromptTokens: () => number;
  prices: PriceTable;
  /** Transitions learned from the team's stored sessions (null until known). */
  learned?: () => TransitionCounts | null;
  /** Resolves when background memory work that would change the next prompt (a summary) is done. */
  memorySettled?: () => Promise<void>;
  /** The newest stored events of a reopened session (its transitions and warming totals). */
  recent?: readonly TroupeEvent[];
  /** Runs warming after the current call's request is on its way (default: setImmediate). */
  defer?: (work: () => void) => void;
}

/**
 * Seed 004's state warming for one session. As each persona's call goes out it predicts who comes next
 * (a `prediction` event); then, off the call's path, it builds the prompts of the likely next personas
 * (with `mode: "prefix"`, the best one is sent to the server as a cache-warming request of one output
 * token, so the next call finds its prefix cached). Warming is skipped for models that need no server and
 * until the server has reported cached tokens, kept within its budget, counted apart (`warming` events),
 * and aborted when the session moves on (another persona got the turn, the session waits or ends).
 */
export class SessionWarming implements CallWarming {
  readonly ledger: WarmingLedger;
  private readonly own = new TransitionCounts();
  private latestPrediction: { turnId: string; persona: string; predictions: Prediction[] } | null = null;
  private turn: Turn | null = null;
  /** Warming requests in flight, by persona. */
  private readonly inFlight = new Map<string, AbortController>();
  private failures = 0;
  // Learned transitions are read once the first answer is in, so reading stored sessions never competes with the first call.
  private learning = false;
  private readonly abortReasons = new WeakMap<AbortController, string>();
  private readonly told = new Set<string>();

  constructor(private readonly options: SessionWarmingOptions) {
    this.ledger = new WarmingLedger(options.settings, options.prices);
    for (const e of options.recent ?? []) this.own.addEvent(options.def, e);
    this.ledger.restore(options.recent ?? []);
  }

  /** The latest prediction (null before the first turn). */
  get latest(): { turnId: string; persona: string; predictions: Prediction[] } | null {
    return this.latestPrediction;
  }

  /** What warming has used so far. */
  get totals(): WarmingTotals {
    return { ...this.ledger.totals };
  }

  /** Follows the session: who came after whom, what the persona answering says (its deltas), and whether the session moved on. */
  observe(e: TroupeEvent): void {
    if (e.type === 'transition') this.own.addEvent(this.options.def, e);
    else if (e.type === 'agent_message') this.learning = true;
    else if (e.type === 'agent_delta') this.heard(e.turn_id, e.text);
    else if (e.type === 'awaiting_user' || e.type === 'session_ended' || e.type === 'session_detached') {
      this.turn = null;
      this.abort('the session stopped for the user', () => true);
    }
  }

  started(call: AgentCall, agent: AgentState, snapshot: SessionState, port: WarmingPort): void {
    if (this.options.settings.mode === 'off') return;
    // The session moved on: warming for anyone else no longer helps, and for this persona it is too late.
    this.abort(`${agent.id} got the turn`, () => true);
    this.turn = { call, agent, snapshot, port, answer: '', predicted: false, revised: false, scheduled: false, warmed: new Set() };
  }

  /**
   * The answer is streaming: its request is long sent and the server is busy with it, so the next persona is
   * predicted now (on the message it answers), and again once it has said REVISE_AT characters (on its words,
   * which decide who is next). Never in the delta's own task: after it.
   */
  private heard(turnId: string, text: string | undefined): void {
    const turn = this.turn;
    if (!turn || turn.call.turnId !== turnId) return;
    if (text && !turn.revised) turn.answer += text;
    const due = !turn.predicted || (!turn.revised && turn.answer.length >= REVISE_AT);
    if (!due || turn.scheduled) return;
    turn.scheduled = true;
    (this.options.defer ?? setImmediate)(() => {
      turn.scheduled = false;
      if (this.turn !== turn || !turn.port.current()) return;
      turn.predicted = true;
      if (turn.answer.length >= REVISE_AT) turn.revised = true;
      this.predict(turn);
    });
  }

  /** Publishes the prediction for a turn and warms the best predictions not warmed yet in this turn. */
  private predict(turn: Turn): void {
    const { settings } = this.options;
    const learned = this.learning ? (this.options.learned?.() ?? null) : null;
    const predictions = predictNext({ def: this.options.def, state: turn.snapshot, call: turn.call, own: this.own, learned, ...(turn.revised ? { answer: turn.answer } : {}) }).map(rounded);
    this.latestPrediction = { turnId: turn.call.turnId, persona: turn.agent.id, predictions };
    this.options.publish(event('prediction', { turn_id: turn.call.turnId, persona: turn.agent.id, on: turn.revised ? 'answer' : 'inbox', predictions }));
    const best = predictions.filter((p) => p.confidence >= settings.min_confidence).slice(0, settings.per_turn);
    // Warming in flight for a persona no longer among the best is worth less than the new best.
    this.abort('a better prediction came', (persona) => !best.some((p) => p.persona === persona));
    const chosen = best.filter((p) => !turn.warmed.has(p.persona));
    if (chosen.length === 0) return;
    for (const p of chosen) turn.warmed.add(p.persona);
    (this.options.defer ?? setImmediate)(() => void this.warm(turn.call, chosen, turn.port));
  }

  /** Builds the chosen personas' prompts (their counts are cached for the real call) and, with `prefix`, sends them, best first. */
  private async warm(call: AgentCall, chosen: Prediction[], port: WarmingPort): Promise<void> {
    if (!port.current()) return;
    // A summary in flight changes the next prompt's head: warm what the next call will really send.
    await this.options.memorySettled?.();
    for (const p of chosen) {
      if (!port.current()) return;
      const agent = this.options.def.agentIndex.get(p.persona);
      const head = agent ? port.prefix(agent) : null;
      if (!head || this.options.settings.mode !== 'prefix' || !this.maySend()) continue;
      // Await one at a time: requests for several personas never pile up on the server.
      await this.send(call, p.persona, { model: this.options.modelFor(p.persona), messages: head.messages, tools: head.tools, ...(head.toolChoice ? { toolChoice: head.toolChoice } : {}), maxCompletionTokens: 1, meta: { ...head.meta, purpose: 'warming', persona: p.persona } }, port);
    }
  }

  /** Whether warming requests may go out at all now (a server that reports its cache, no run of failures). */
  private maySend(): boolean {
    const { model } = this.options;
    return !model.offline && !model.free && this.failures < FAILURES_MAX && this.options.cacheReported();
  }

  private async send(call: AgentCall, persona: string, request: ChatRequest, port: WarmingPort): Promise<void> {
    const estimate = promptTokens(request.messages) + (request.tools?.length ? TOOL_TOKENS : 0);
    const refused = this.ledger.refuses(estimate, this.options.ownPromptTokens());
    // Past max_share warming waits for the session's own calls to catch up; max_tokens is spent for good.
    if (refused === 'max_tokens') this.tellOnce('budget', `warming stopped: its budget of ${this.options.settings.max_tokens!.toLocaleString('en-US')} prompt tokens is spent (team.json warming.max_tokens)`);
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
    this.options.publish(event('warming', {
      turn_id: call.turnId, persona, model: request.model, status, ...(why !== undefined ? { reason: why } : {}),
      prompt_tokens: record.promptTokens, ...(usage?.cachedTokens !== undefined ? { cached_tokens: usage.cachedTokens } : {}), completion_tokens: usage?.completionTokens ?? 0,
      cost: record.cost, total_requests: record.totals.requests, total_prompt_tokens: record.totals.promptTokens, total_cost: this.ledger.totalCost,
    }));
  }

  /** Aborts the warming requests in flight for the personas `which` picks. */
  private abort(reason: string, which: (persona: string) => boolean): void {
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

function rounded(p: Prediction): Prediction {
  const r = (n: number) => Math.round(n * 1000) / 1000;
  return { persona: p.persona, confidence: r(p.confidence), history: r(p.history), context: r(p.context), dependency: r(p.dependency) };
}
