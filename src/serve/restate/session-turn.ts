import type { LineSession } from '../../commands/execute.js';
import { agentById } from '../../engine/definition.js';
import type { Effect } from '../../engine/effects.js';
import { event, type EngineEvent, type TroupeEvent } from '../../engine/event-map.js';
import type { EngineInput } from '../../engine/input-events.js';
import type { AgentCall } from '../../engine/moves.js';
import type { SessionState } from '../../engine/session.js';
import { step } from '../../engine/step.js';
import type { ChatResponse } from '../../llm/chat-model.js';
import { demoProgress } from '../../session/demo-progress.js';
import { FullHistoryPromptBuilder } from '../../memory/prompt-builder.js';
import { CommandApprovals } from '../../session/approvals.js';
import { TranscriptFold } from '../../memory/transcript.js';
import { teamTurns } from '../../team/turns.js';
import { BudgetGuard } from '../../usage/budget.js';
import { sessionUsage, type SessionUsage } from '../../usage/session-usage.js';
import { restoreUsage, UsageMeter, usageState, type UsageState } from '../../usage/usage-meter.js';
import type { ModelCall, ResultRequest, SessionRecord, SessionRuntime } from './records.js';

export type { SessionRecord, SessionRuntime } from './records.js';

// Events a line's inspection commands see (the same window the embedded session keeps).
const RECENT = 500;

/**
 * One handler invocation's work on a session, pure and synchronous like the actor it mirrors: inputs go
 * through a mailbox into `step()`, each step's events are stamped first, then its effects run — a model
 * call becomes a `ModelCall` (its request built from the state and transcript at that moment) for the
 * handler to send to the model service. The handler persists `result()` and sends the calls.
 */
export class SessionTurn {
  private state: SessionState;
  private lastSeq: number;
  private readonly meter: UsageMeter;
  private readonly budget: BudgetGuard;
  private readonly transcript = new TranscriptFold();
  private readonly history: TroupeEvent[];
  private readonly mailbox: EngineInput[] = [];
  private draining = false;
  /** Events stamped in this turn, in order. */
  readonly events: TroupeEvent[] = [];
  /** Model calls to start, in order. */
  readonly calls: ModelCall[] = [];

  constructor(
    private readonly rt: SessionRuntime,
    record: SessionRecord,
    history: readonly TroupeEvent[],
    private readonly now: number,
  ) {
    this.state = record.state;
    this.lastSeq = record.lastSeq;
    this.history = [...history];
    for (const e of history) this.transcript.add(e);
    this.meter = new UsageMeter(rt.prices);
    restoreUsage(this.meter, record.usage);
    // Built before this turn records usage, so a budget crossed by this result pauses the next call.
    this.budget = new BudgetGuard(this.meter, rt.def.limits);
  }

  /** The engine state now. */
  get snapshot(): SessionState {
    return this.state;
  }

  /** What to persist: the engine state, usage totals and the last sequence number. */
  result(): SessionRecord & { usage: UsageState } {
    return { state: this.state, usage: usageState(this.meter), lastSeq: this.lastSeq };
  }

  /** Queues an input; processed at once unless one is being processed (then right after it). */
  send(input: EngineInput): void {
    this.mailbox.push(input);
    if (this.draining) return;
    this.draining = true;
    try {
      for (let next = this.mailbox.shift(); next; next = this.mailbox.shift()) this.process(next);
    } finally {
      this.draining = false;
    }
  }

  /** Applies a model call's outcome: its retries and usage are published, then its result goes to the engine. */
  applyResult({ call, model, outcome }: ResultRequest): void {
    for (const r of outcome.retries) this.publish(event('retry', { turn_id: call.turnId, persona: call.persona, attempt: r.attempt, wait_ms: r.waitMs, reason: r.reason }));
    if (!outcome.ok) return this.send({ type: 'agent_failed', turnId: call.turnId, reason: outcome.reason });
    const response = outcome.response as ChatResponse;
    // As MeteredModel: a free model (the demo) is metered under the id it reports, which has no price.
    const r = this.meter.record(call.persona, outcome.free ? response.model : model, response.usage, response.model);
    if (r) this.publish(event('usage', { persona: r.persona, model: r.model, prompt_tokens: r.promptTokens, completion_tokens: r.completionTokens, ...(r.cachedTokens !== undefined ? { cached_tokens: r.cachedTokens } : {}), cost: r.cost, total_tokens: r.totalTokens, total_cost: r.totalCost }));
    this.send(this.turns().result(call, response));
  }

  /** The session as a typed line sees it (`executeLine`): the same commands as the terminal UI. */
  lineSession(): LineSession {
    return {
      def: this.rt.def,
      getSnapshot: () => this.state,
      start: (brief: string) => this.send({ type: 'start', brief, model: this.rt.modelLabel }),
      send: (input: EngineInput) => this.send(input),
      recent: () => this.history.slice(-RECENT),
      history: async () => [...this.history],
      store: null,
      // Agent tools (and so commands waiting for !allow) are a workflow's; a team on Restate has none waiting.
      approvals: new CommandApprovals(() => undefined),
    };
  }

  /** Usage totals as `!cost` reads them: the stored meter totals this turn restored. */
  lineUsage(): SessionUsage {
    return sessionUsage(this.meter, { free: this.rt.demo });
  }

  private publish(e: EngineEvent): void {
    const stamped = { ...e, session_id: this.state.id, seq: ++this.lastSeq, at: this.now } as TroupeEvent;
    this.events.push(stamped);
    this.history.push(stamped);
    this.transcript.add(stamped);
  }

  private process(input: EngineInput): void {
    const { session, effects } = step(this.rt.def, this.state, input);
    this.state = session;
    const work: Effect[] = [];
    for (const fx of effects) {
      if (fx.type === 'emit') this.publish(fx.event);
      else work.push(fx);
    }
    for (const fx of work) this.execute(fx);
  }

  private execute(fx: Effect): void {
    if (fx.type === 'call_agent') this.call(fx.call);
    // Teams never evaluate code; a workflow that did would get an answer instead of waiting forever.
    else if (fx.type === 'evaluate') this.send({ type: 'evaluated', id: fx.id, result: { ok: false, error: 'workflow code does not run on the Restate backend' } });
    // abort_call: a call on another worker cannot be cut off; the engine ignores its stale result (turn ids).
  }

  private call(call: AgentCall): void {
    const persona = agentById(this.rt.def, call.persona);
    if (!persona) return this.send({ type: 'agent_failed', turnId: call.turnId, reason: `unknown persona ${call.persona}` });
    const model = this.rt.modelFor(persona.id);
    this.publish(event('agent_started', { turn_id: call.turnId, path: call.path, persona: persona.id, attempt: call.attempt, model, inbox: call.inbox.kind, ...(call.branch !== undefined ? { branch: call.branch } : {}) }));
    const over = this.budget.check();
    if (over) return this.send({ type: 'budget_exceeded', reason: over, turnId: call.turnId });
    const turn = this.turns().request(call, this.state, persona);
    this.calls.push({
      sessionId: this.state.id,
      call,
      model,
      messages: turn.messages,
      tools: turn.tools,
      ...(turn.toolChoice ? { toolChoice: turn.toolChoice } : {}),
      meta: { ...turn.meta },
      ...(this.rt.demo ? { demoProgress: demoProgress(this.history) } : {}),
    });
  }

  private turns() {
    return teamTurns(this.rt.def, new FullHistoryPromptBuilder(this.transcript), this.rt.prompts);
  }
}
