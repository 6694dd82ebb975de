import type { MachineDefinition, Mode } from '../engine/definition.js';
import { agentById } from '../engine/definition.js';
import type { Effect } from '../engine/effects.js';
import type { EngineInput } from '../engine/input-events.js';
import { event, type EngineEvent } from '../engine/event-map.js';
import { createSession, type AgentCall, type SessionState } from '../engine/session.js';
import { step } from '../engine/step.js';
import { parseDirective, stripDirectiveJson } from '../directive/parse.js';
import { directiveTool } from '../directive/tool.js';
import type { ChatModel } from '../llm/chat-model.js';
import { AbortedError } from '../llm/errors.js';
import { FullHistoryPromptBuilder, type PromptBuilder } from '../memory/prompt-builder.js';
import { TroupeBus } from './bus.js';
import { MeteredModel } from '../usage/metered-model.js';
import type { UsageMeter } from '../usage/usage-meter.js';
import { BudgetGuard } from '../usage/budget.js';

/** Everything a runner needs; IO is injected so tests stay offline and deterministic. */
export interface RunnerOptions {
  def: MachineDefinition;
  prompts: Record<string, string>;
  model: ChatModel;
  /** Model id for a persona (tier already resolved). */
  modelFor: (personaId: string) => string;
  bus?: TroupeBus;
  prompt?: PromptBuilder;
  session?: SessionState;
  sessionId?: string;
  mode?: Mode;
  clock?: () => Date;
  /** Called after every step with the new state and the input that produced it (persistence hooks in here). */
  onStep?: (session: SessionState, input: EngineInput) => void;
  /** Meters every call (usage events with cost and totals) and enforces limits.max_tokens / max_cost. */
  meter?: UsageMeter;
}

/** Executes the pure core's effects: calls models, aborts calls, publishes events, feeds results back. */
export class Runner {
  readonly bus: TroupeBus;
  session: SessionState;
  private readonly controllers = new Map<string, AbortController>();
  private readonly running = new Set<Promise<void>>();
  private readonly prompt: PromptBuilder;
  private readonly waiters: (() => void)[] = [];
  private readonly model: ChatModel;
  private readonly budget: BudgetGuard | null;

  constructor(private readonly options: RunnerOptions) {
    const id = options.session?.id ?? options.sessionId ?? 'session';
    this.session = options.session ?? createSession(options.def, { id, mode: options.mode ?? 'fsm' });
    this.bus = options.bus ?? new TroupeBus(id, options.clock);
    this.bus.setSession(this.session.id);
    this.prompt = options.prompt ?? new FullHistoryPromptBuilder();
    const meter = options.meter;
    this.model = meter ? new MeteredModel(options.model, meter) : options.model;
    this.budget = meter ? new BudgetGuard(meter, options.def.limits) : null;
    meter?.onRecord((r) => this.publish(event('usage', { persona: r.persona, model: r.model, prompt_tokens: r.promptTokens, completion_tokens: r.completionTokens, cost: r.cost, total_tokens: r.totalTokens, total_cost: r.totalCost })));
  }

  /** The definition this runner interprets. */
  get def(): MachineDefinition {
    return this.options.def;
  }

  /** Publishes a runtime event (one the pure core does not produce). */
  publish(e: EngineEvent): void {
    this.bus.publish(e);
  }

  /** Starts the session with a brief. */
  start(brief: string): void {
    const initial = agentById(this.def, this.def.initial)!;
    this.publish(event('session_started', { brief, mode: this.session.mode, team: this.def.name, model: this.options.model.label, initial: initial.path }));
    this.dispatch({ type: 'start', brief });
  }

  /**
   * Continues a session restored from a snapshot: re-issues the call that was in flight when it was
   * saved (its result was never applied, so the turn is re-run, not half applied). Otherwise a no-op.
   */
  resume(): void {
    const call = this.session.inFlight;
    if (call && this.session.status === 'running') this.execute({ type: 'call_agent', call });
    this.notifyIfSettled();
  }

  /** Feeds one input to the core and executes the resulting effects. */
  dispatch(input: EngineInput): void {
    const { session, effects } = step(this.def, this.session, input);
    this.session = session;
    this.options.onStep?.(session, input);
    for (const effect of effects) this.execute(effect);
    this.notifyIfSettled();
  }

  /** Resolves once no model call is in flight (the session waits for the user or has ended). */
  settled(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Aborts every call in flight (on quit or shutdown). */
  abortAll(): void {
    for (const c of this.controllers.values()) c.abort();
  }

  private notifyIfSettled(): void {
    if (this.running.size > 0) return;
    for (const w of this.waiters.splice(0)) w();
  }

  private execute(effect: Effect): void {
    switch (effect.type) {
      case 'emit':
        this.publish(effect.event);
        break;
      case 'call_agent': {
        const task = this.call(effect.call).finally(() => {
          this.running.delete(task);
          this.notifyIfSettled();
        });
        this.running.add(task);
        break;
      }
      case 'abort_call':
        this.controllers.get(effect.turnId)?.abort();
        break;
      case 'await_user':
      case 'end':
        break;
    }
  }

  private async call(call: AgentCall): Promise<void> {
    const persona = agentById(this.def, call.persona);
    if (!persona) {
      this.dispatch({ type: 'agent_failed', turnId: call.turnId, reason: `unknown persona ${call.persona}` });
      return;
    }
    const controller = new AbortController();
    this.controllers.set(call.turnId, controller);
    const model = this.options.modelFor(persona.id);
    this.publish(event('agent_started', { turn_id: call.turnId, path: call.path, persona: persona.id, attempt: call.attempt, model, inbox: call.inbox.kind }));
    // Yield once so the caller finishes publishing the step's events before the model answers.
    await Promise.resolve();
    if (controller.signal.aborted) {
      this.controllers.delete(call.turnId);
      return;
    }
    const overBudget = this.budget?.check();
    if (overBudget) {
      this.controllers.delete(call.turnId);
      this.dispatch({ type: 'budget_exceeded', reason: overBudget, turnId: call.turnId });
      return;
    }
    try {
      const messages = this.prompt.build({ def: this.def, session: this.session, call, persona, personaPrompt: this.options.prompts[persona.id] ?? '' });
      const allowed = this.def.agents.filter((a) => a.id !== persona.id && (!persona.allowed || persona.allowed.has(a.id))).map((a) => a.id);
      const response = await this.model.generate({
        model,
        messages,
        tools: [directiveTool()],
        signal: controller.signal,
        meta: { purpose: 'persona', persona: persona.id, personaName: persona.name, inbox: call.inbox.kind, brief: this.session.brief, turnId: call.turnId, handoffTo: allowed },
        onDelta: (d) => {
          if (controller.signal.aborted) return;
          this.publish(event('agent_delta', d.type === 'text'
            ? { turn_id: call.turnId, persona: persona.id, text: d.text }
            : { turn_id: call.turnId, persona: persona.id, tool_arguments: d.text }));
        },
      });
      if (controller.signal.aborted) return;
      if (response.usage && !this.options.meter) {
        const total = response.usage.promptTokens + response.usage.completionTokens;
        this.publish(event('usage', { persona: persona.id, model: response.model, prompt_tokens: response.usage.promptTokens, completion_tokens: response.usage.completionTokens, cost: null, total_tokens: total, total_cost: null }));
      }
      const directive = parseDirective(response);
      const text = directive.ok && directive.source === 'text' ? stripDirectiveJson(response.text) : response.text;
      this.dispatch({ type: 'agent_completed', turnId: call.turnId, text, directive });
    } catch (error) {
      if (error instanceof AbortedError || controller.signal.aborted) return;
      const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
      this.dispatch({ type: 'agent_failed', turnId: call.turnId, reason });
    } finally {
      this.controllers.delete(call.turnId);
    }
  }
}
