import type { WarmingSettings } from '../config/team-schema.js';
import type { AgentState, MachineDefinition } from '../engine/definition.js';
import { event, type TroupeEvent } from '../engine/event-map.js';
import type { AgentCall } from '../engine/moves.js';
import type { SessionState } from '../engine/session.js';
import type { CallWarming, WarmingPort } from '../kernel/effect-runner.js';
import type {} from './events.js';
import type { WarmingTotals } from './ledger.js';
import { loadTokenizer } from '../memory/tokens.js';
import { WarmingRequests, type WarmingRequestsOptions } from './warming-requests.js';
import { predictNext, type PredictInput, type Prediction } from './predict.js';
import type { Learned } from './learned.js';
import type { TransitionCounts } from './transitions.js';

/** Characters of an answer after which the next persona is predicted again, on what the persona has said. */
export const REVISE_AT = 300;

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
export interface SessionWarmingOptions extends WarmingRequestsOptions {
  def: MachineDefinition;
  settings: WarmingSettings;
  /** Model id of a persona. */
  modelFor: (persona: string) => string;
  /** The session's own transitions so far (folded and checkpointed by the session: TransitionFold). */
  own: TransitionCounts;
  /** Who is likely next (default: the team's predictor; a workflow brings its own). */
  predict?: (input: PredictInput) => Prediction[];
  /** Predict again on the answer once it has said REVISE_AT characters (default true: a team's words decide who is next; a workflow's conditions read tool calls). */
  revise?: boolean;
  /** Transitions learned from the team's stored sessions (null until known), told this session's own when it ends. */
  learned?: Learned;
  /** The learned transitions are at hand (read with the session, no store to list): used from the first prediction. */
  learnNow?: boolean;
  /** Resolves when background memory work that would change the next prompt (a summary) is done. */
  memorySettled?: () => Promise<void>;
  /** The newest stored events of a reopened session (its warming totals). */
  recent?: readonly TroupeEvent[];
  /** Runs warming after the current call's request is on its way (default: setImmediate). */
  defer?: (work: () => void) => void;
}

/**
 * Seed 004's state warming for one session. As each persona's answer streams it predicts who comes next
 * (a `prediction` event, again once the answer has said enough); then, off the call's path, it builds the
 * prompts of the likely next personas (with `mode: "prefix"`, the best ones are sent to the server as
 * cache-warming requests of one output token, so the next call finds its prefix cached: WarmingRequests).
 * Warming in flight is aborted when the session moves on (a turn starts, the session waits or ends).
 */
export class SessionWarming implements CallWarming {
  private readonly requests: WarmingRequests;
  private latestPrediction: { turnId: string; persona: string; predictions: Prediction[] } | null = null;
  private turn: Turn | null = null;
  // Learned transitions are listed once the first answer is in, so listing stored sessions never competes with the first call.
  private learning = false;

  constructor(private readonly options: SessionWarmingOptions) {
    this.requests = new WarmingRequests(options);
    this.requests.ledger.restore(options.recent ?? []);
    if (options.learnNow) {
      this.learning = true;
      options.learned?.();
    }
  }

  /** Its mode (team.json's or the workflow's `warming`). */
  get mode(): WarmingSettings['mode'] {
    return this.options.settings.mode;
  }

  /** The latest prediction (null before the first turn). */
  get latest(): { turnId: string; persona: string; predictions: Prediction[] } | null {
    return this.latestPrediction;
  }

  /** What warming has used so far. */
  get totals(): WarmingTotals {
    return { ...this.requests.ledger.totals };
  }

  /** Follows the session: what the persona answering says (its deltas), and whether the session moved on. */
  observe(e: TroupeEvent): void {
    if (e.type === 'agent_message' && !this.learning) {
      this.learning = true;
      // Warming requests are sized by the tokenizer: load it now, off the path of any call, not in the first one's middle.
      if (this.options.settings.mode === 'prefix') void loadTokenizer().catch(() => undefined);
      // Starts reading the team's stored sessions now, in the background, so the next prediction may use them.
      this.options.learned?.();
    } else if (e.type === 'agent_delta') this.heard(e.turn_id, e.text);
    else if (e.type === 'awaiting_user' || e.type === 'session_ended' || e.type === 'session_detached') {
      this.turn = null;
      this.requests.abort('the session stopped for the user', () => true);
      // What this session did is learned by the team's sessions that start later in this process.
      if (e.type !== 'awaiting_user') this.options.learned?.remember(this.options.own);
    }
  }

  started(call: AgentCall, agent: AgentState, snapshot: SessionState, port: WarmingPort): void {
    if (this.options.settings.mode === 'off') return;
    // The session moved on: warming for anyone else no longer helps, and for this persona it is too late.
    this.requests.abort(`${agent.id} got the turn`, () => true);
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
    if (text && !turn.revised && this.options.revise !== false) turn.answer += text;
    const due = !turn.predicted || (this.options.revise !== false && !turn.revised && turn.answer.length >= REVISE_AT);
    if (!due || turn.scheduled) return;
    turn.scheduled = true;
    (this.options.defer ?? setImmediate)(() => {
      turn.scheduled = false;
      if (this.turn !== turn || !turn.port.current()) return;
      turn.predicted = true;
      if (this.options.revise !== false && turn.answer.length >= REVISE_AT) turn.revised = true;
      this.predict(turn);
    });
  }

  /** Publishes the prediction for a turn and warms the best predictions not warmed yet in this turn. */
  private predict(turn: Turn): void {
    const { settings } = this.options;
    const learned = this.learning ? (this.options.learned?.() ?? null) : null;
    const predict = this.options.predict ?? predictNext;
    const predictions = predict({ def: this.options.def, state: turn.snapshot, call: turn.call, own: this.options.own, learned, ...(turn.revised ? { answer: turn.answer } : {}) }).map(rounded);
    this.latestPrediction = { turnId: turn.call.turnId, persona: turn.agent.id, predictions };
    this.options.publish(event('prediction', { turn_id: turn.call.turnId, persona: turn.agent.id, on: turn.revised ? 'answer' : 'inbox', predictions }));
    const best = predictions.filter((p) => p.confidence >= settings.min_confidence).slice(0, settings.per_turn);
    // Warming in flight for a persona no longer among the best is worth less than the new best.
    this.requests.abort('a better prediction came', (persona) => !best.some((p) => p.persona === persona));
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
      if (!head || this.options.settings.mode !== 'prefix' || !this.requests.maySend()) continue;
      // Await one at a time: requests for several personas never pile up on the server.
      await this.requests.send(
        call,
        p.persona,
        {
          model: this.options.modelFor(p.persona),
          messages: head.messages,
          tools: head.tools,
          ...(head.toolChoice ? { toolChoice: head.toolChoice } : {}),
          maxCompletionTokens: 1,
          meta: { ...head.meta, purpose: 'warming', persona: p.persona },
        },
        port,
      );
    }
  }
}

function rounded(p: Prediction): Prediction {
  const r = (n: number) => Math.round(n * 1000) / 1000;
  return { persona: p.persona, confidence: r(p.confidence), history: r(p.history), context: r(p.context), dependency: r(p.dependency) };
}
