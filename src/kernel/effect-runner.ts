import type { MachineDefinition } from '../engine/definition.js';
import { agentById, type AgentState } from '../engine/definition.js';
import type { Effect } from '../engine/effects.js';
import { event, type EngineEvent } from '../engine/event-map.js';
import type { EngineInput } from '../engine/input-events.js';
import type { AgentCall } from '../engine/moves.js';
import type { SessionState } from '../engine/session.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../llm/chat-model.js';
import { UserError } from '../errors.js';
import type { Changes } from '../engine/agent-reply.js';
import { AbortedError } from '../llm/errors.js';
import type { BudgetGuard } from '../usage/budget.js';
import type { Evaluation, EvaluationResult } from '../engine/evaluation.js';
import type { AgentTools, TurnRequest, TurnShaper } from './turn-shaper.js';
import type { TurnUndo } from '../tools/turn-undo.js';
import type { Toolset } from '../tools/toolset.js';
import { directSteps, type EffectPort, type StepRunner } from './ports.js';

/** Runs a workflow's code (conditions, scripts, templates) in a sandbox. */
export interface Evaluator {
  evaluate(evaluation: Evaluation, signal?: AbortSignal): Promise<EvaluationResult>;
}

/** What the runner needs from its session: the definition, the current state, and where results and facts go. */
export interface RunnerHost {
  readonly def: MachineDefinition;
  snapshot(): SessionState;
  /** Feeds a result back to the engine. */
  send(input: EngineInput): void;
  /** Publishes a runtime fact (stored unless it is a streaming delta). */
  publish(e: EngineEvent): void;
}

/** Where agent tools work: the session's directory for workspaces, how new ones start, who approves `ask` commands. */
export interface WorkspaceSetup {
  /** The session's own directory; workspaces go in `<root>/workspaces/<name>`. */
  root: string;
  /** The data directory: a workspace's copy of `from` never enters it (nor any session's folder). */
  keepOut?: string;
  /** A directory each new workspace starts as a copy (or git clone) of; absent: empty. */
  from?: string | null;
  git?: boolean;
  /** Decides `ask` commands (absent: they are refused, as in a headless run). */
  approve?: (ask: { command: string; cwd: string; persona: string; branch?: string }, signal: AbortSignal) => Promise<boolean>;
}

/** What a call-start observer warms the next call with: the head of an agent's prompt, and a way to send it as work of this runner. */
export interface WarmingPort {
  /** The head of the request a call of this agent would send now (null: this kind has none). */
  prefix(agent: AgentState): TurnRequest | null;
  /** True while the call that started is still in flight (the session has not moved on). */
  current(): boolean;
  /** Sends a cache-warming request: one step of the runner, aborted with its other work, not metered with the session's calls. */
  send(request: ChatRequest): Promise<ChatResponse>;
}

/** Told when an agent's call has gone out (a first attempt, not a branch), to predict who is next and warm their prompt while it answers; never awaited by the call. */
export interface CallWarming {
  started(call: AgentCall, agent: AgentState, snapshot: SessionState, port: WarmingPort): void;
}

/** The runner's collaborators: the model (already metered), prompt building, persona prompts and models, budgets. */
export interface EffectRunnerOptions {
  /** Where agent tools work (sessions whose agents have tools). */
  workspaces?: WorkspaceSetup;
  model: ChatModel;
  /** Model id for a persona (tier already resolved). */
  modelFor: (personaId: string) => string;
  /** How this definition's agent turns are asked and read. */
  turns: TurnShaper;
  /** Where workflow code runs (workflow definitions only). */
  evaluator?: Evaluator;
  budget: BudgetGuard | null;
  /** Publishes usage from the response itself (when no meter does). */
  reportUsage: boolean;
  /** How each step of an effect's work (an evaluation, a tool run) is made durable; default: run directly. The model given is already wrapped by the same runner. */
  steps?: StepRunner;
  /** Told as each agent call goes out, to predict the next and warm its prompt (absent: no warming). */
  warming?: CallWarming;
  /** The model warming requests go to: the same steps, but not the session's meter (warming is counted apart). */
  warmingModel?: ChatModel;
}

// The branch fields of a call's events when it is not a branch (one object for every call, spread into none).
const NO_BRANCH: { branch?: string } = Object.freeze({});

/** The branch fields of a call's events: its branch, if it is one. */
function branchOf(call: AgentCall): { branch?: string } {
  return call.branch !== undefined ? { branch: call.branch } : NO_BRANCH;
}

/** What a call-start observer gets to warm the next call with, for one call. */
class CallWarmingPort implements WarmingPort {
  constructor(
    private readonly host: RunnerHost,
    private readonly turns: TurnShaper,
    private readonly turnId: string,
    readonly send: (request: ChatRequest) => Promise<ChatResponse>,
  ) {}

  prefix(agent: AgentState): TurnRequest | null {
    return this.turns.prefix?.(this.host.snapshot(), agent) ?? null;
  }

  current(): boolean {
    return this.host.snapshot().inFlight?.turnId === this.turnId;
  }
}

/** A toolset whose every tool run is one step of the runner (a journaled run is never repeated after a crash). */
function durableToolset(toolset: Toolset, steps: StepRunner, signal: AbortSignal): Toolset {
  if (steps.kind === 'direct') return toolset;
  return { ...toolset, has: (n) => toolset.has(n), summarize: (c) => toolset.summarize(c), run: (call) => steps.run(`tool ${call.name}`, (s) => toolset.run(call, s), signal) };
}

/**
 * The effect port's work, the same on every backend: calls models (with their tool loops), runs sandbox
 * evaluations, aborts calls; results go back to the session as inputs. Each step of that work goes
 * through a step runner, so a durable backend keeps every finished step; facts (a call starting, a tool
 * run, retries) are published between steps, never from inside one.
 */
export class EffectRunner implements EffectPort {
  private readonly controllers = new Map<string, AbortController>();
  private readonly warmers = new Set<AbortController>();
  /**
   * Undo logs being dropped, by workspace: a turn's log is dropped after its answer is journaled, and that
   * answer can start the next turn in the same workspace at once (the next state, a revision fan-out); the
   * next turn's log waits for the drop, or the two race on one directory.
   */
  private readonly committing = new Map<string, Promise<void>>();
  private readonly evaluating = new Set<string>();
  private readonly tasks = new Set<Promise<void>>();
  private readonly waiters: (() => void)[] = [];
  // Calls (by turn id) whose agent_started the kernel published with the step that started them.
  private readonly announced = new Set<string>();

  constructor(
    private readonly host: RunnerHost,
    private readonly options: EffectRunnerOptions,
  ) {}

  private get steps(): StepRunner {
    return this.options.steps ?? directSteps;
  }

  /** Model calls in flight. */
  get busy(): boolean {
    return this.tasks.size > 0;
  }

  /** Executes one effect (events are published by the session before effects run). */
  execute(effect: Effect): void {
    switch (effect.type) {
      case 'call_agent': {
        const task = this.call(effect.call).finally(() => {
          this.tasks.delete(task);
          this.notify();
        });
        this.tasks.add(task);
        break;
      }
      case 'abort_call':
        this.controllers.get(effect.turnId)?.abort();
        break;
      case 'evaluate': {
        const task = this.evaluate(effect.id, effect.evaluation).finally(() => {
          this.tasks.delete(task);
          this.notify();
        });
        this.tasks.add(task);
        break;
      }
      case 'detach':
        this.abortAll();
        break;
      case 'end': {
        this.abortAll();
        const root = this.options.workspaces?.root;
        if (root === undefined) break;
        // Once the aborted calls have settled: no turn of an ended session runs again, so its undo logs go.
        const task = Promise.allSettled([...this.tasks])
          .then(() => import('../tools/undo-store.js'))
          .then(({ dropUndoLogs }) => dropUndoLogs(root))
          .catch(() => undefined)
          .finally(() => {
            this.tasks.delete(task);
            this.notify();
          });
        this.tasks.add(task);
        break;
      }
      case 'emit':
      case 'await_user':
        break;
    }
  }

  /** Resolves once no model call is in flight. */
  idle(): Promise<void> {
    if (this.tasks.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Aborts every call in flight, warming requests included (quit, shutdown, a failed save). */
  abortAll(): void {
    for (const c of this.controllers.values()) c.abort();
    for (const c of this.warmers) c.abort();
  }

  /** Runs a warming request like any work of the runner (idle() waits for it), aborted by abortAll(). */
  private warm(request: ChatRequest): Promise<ChatResponse> {
    const model = this.options.warmingModel;
    if (!model) return Promise.reject(new Error('this session has no model for warming requests'));
    const controller = new AbortController();
    const outer = request.signal;
    const onAbort = () => controller.abort();
    if (outer?.aborted) controller.abort();
    outer?.addEventListener('abort', onAbort, { once: true });
    this.warmers.add(controller);
    const answer = model.generate({ ...request, signal: controller.signal });
    const task: Promise<void> = answer
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        outer?.removeEventListener('abort', onAbort);
        this.warmers.delete(controller);
        this.tasks.delete(task);
        this.notify();
      });
    this.tasks.add(task);
    return answer;
  }

  /** The warming port of one call (an object of a class, not three closures made per call). */
  private warmingPort(call: AgentCall): WarmingPort {
    return new CallWarmingPort(this.host, this.options.turns, call.turnId, this.sendWarming);
  }

  private readonly sendWarming = (request: ChatRequest): Promise<ChatResponse> => this.warm(request);

  /**
   * The agent_started of a call this effect starts, built now so the step's journal line holds it (the call
   * then does not publish it): the same event the call would publish as its request goes out.
   */
  announce(effect: Effect): EngineEvent | null {
    if (effect.type !== 'call_agent') return null;
    const call = effect.call;
    const persona = agentById(this.host.def, call.persona);
    if (!persona) return null;
    this.announced.add(call.turnId);
    return this.startedEvent(call, persona.id, this.options.modelFor(persona.id));
  }

  private startedEvent(call: AgentCall, persona: string, model: string): EngineEvent {
    // The event names the model that answers: the id the call names, unless the model answers every call itself (the demo).
    const answering = this.options.model.answeredBy ?? model;
    const started = { turn_id: call.turnId, path: call.path, persona, attempt: call.attempt, model: answering, inbox: call.inbox.kind };
    return event('agent_started', call.branch !== undefined ? { ...started, branch: call.branch } : started);
  }

  /** Whether a call (by turn id) or an evaluation (by id) is already in progress here. */
  running(effect: Effect): boolean {
    if (effect.type === 'call_agent') return this.controllers.has(effect.call.turnId);
    if (effect.type === 'evaluate') return this.evaluating.has(effect.id);
    return false;
  }

  private notify(): void {
    if (this.tasks.size > 0) return;
    for (const w of this.waiters.splice(0)) w();
  }

  private async evaluate(id: string, evaluation: Evaluation): Promise<void> {
    const evaluator = this.options.evaluator;
    const controller = new AbortController();
    const untrack = this.steps.track?.(controller.signal);
    this.evaluating.add(id);
    let result: EvaluationResult;
    try {
      if (!evaluator) result = { ok: false, error: 'this session has no sandbox to run workflow code in' };
      else {
        try {
          result = await this.steps.run('evaluate', (signal) => evaluator.evaluate(evaluation, signal), controller.signal);
        } catch (error) {
          result = { ok: false, error: error instanceof Error ? error.message.split('\n')[0]! : String(error) };
        }
      }
      this.host.send({ type: 'evaluated', id, result });
    } finally {
      this.evaluating.delete(id);
      untrack?.();
    }
  }

  /** A turn with agent tools: the tool loop in the agent's workspace; a branch's changes come back with its answer. */
  private async withTools(
    call: AgentCall,
    persona: string,
    request: ChatRequest,
    spec: AgentTools,
    signal: AbortSignal,
  ): Promise<{ response: ChatResponse; changes: Changes | undefined; undo?: TurnUndo }> {
    const setup = this.options.workspaces;
    if (!setup) throw new UserError(`${persona} has agent tools, but this session has no workspace directory for them`);
    // Loaded on first use: sessions without tools never pay for the tool modules.
    const tools = await import('../tools/index.js');
    const ws =
      (await tools.openWorkspace({ root: setup.root, name: spec.workspace })) ??
      (await tools.createWorkspace({
        root: setup.root,
        name: spec.workspace,
        ...(setup.keepOut ? { keepOut: [setup.keepOut] } : {}),
        ...(setup.from ? { from: setup.from } : {}),
        ...(setup.git ? { git: true } : {}),
      }));
    const branch = branchOf(call);
    const approve = setup.approve ? (command: string, cwd: string) => setup.approve!({ command, cwd, persona, ...branch }, signal) : undefined;
    const toolset = tools.createToolset({ workspace: ws.dir, ...(ws.home !== ws.dir ? { top: ws.home } : {}), tools: spec.tools, commands: tools.commandPolicyOf(spec.commandPolicy, approve) });
    // Run directly, a turn re-run after a crash starts from the files its first run found (its writes are undone);
    // with journaled steps its finished tool runs are kept instead, and a re-run goes on after them.
    const undo = this.steps.kind === 'direct' ? new tools.TurnUndo(toolset.root, tools.undoStoreOf(setup.root, spec.workspace)) : null;
    await this.committing.get(spec.workspace);
    const { restored, refused } = (await undo?.restore(call.turnId)) ?? { restored: 0, refused: [] };
    if (restored > 0) this.host.publish(event('note', { text: `${spec.workspace}: ${restored} file(s) put back as they were before turn ${call.turnId} first ran (it was cut off)` }));
    if (refused.length > 0) this.host.publish(event('note', { text: `${spec.workspace}: not put back: ${refused.join('; ')}` }));
    await undo?.begin(call.turnId);
    const loop = await tools.runToolLoop({
      model: this.options.model,
      request,
      toolset: durableToolset(undo ? undo.wrap(toolset) : toolset, this.steps, signal),
      maxSteps: spec.maxSteps,
      onTool: (e) =>
        this.host.publish(
          event('tool_call', {
            turn_id: call.turnId,
            persona,
            tool: e.tool,
            summary: e.summary,
            phase: e.phase,
            ...(e.ok !== undefined ? { ok: e.ok } : {}),
            ...(e.detail ? { detail: e.detail } : {}),
            ...branch,
          }),
        ),
    });
    const changes = spec.reportChanges ? await this.steps.run('workspace changes', () => tools.changesSince(ws), signal) : undefined;
    return { response: loop.response, changes, ...(undo ? { undo } : {}) };
  }

  private async call(call: AgentCall): Promise<void> {
    const { host } = this;
    const def = host.def;
    const persona = agentById(def, call.persona);
    if (!persona) {
      host.send({ type: 'agent_failed', turnId: call.turnId, reason: `unknown persona ${call.persona}` });
      return;
    }
    const controller = new AbortController();
    this.controllers.set(call.turnId, controller);
    const untrack = this.steps.track?.(controller.signal);
    // A branch's timeout: the call is cut off and reported as failed, so the join can decide without it. Only a call
    // with a timeout has a timer to stop (aborting a signal builds a DOMException: not on every turn), or a closure for it.
    let timedOut = false;
    let timerStop: AbortController | null = null;
    let timer: NodeJS.Timeout | null = null;
    if (call.timeoutMs !== undefined) {
      const timeUp = () => {
        timedOut = true;
        controller.abort();
      };
      if (this.steps.after) {
        timerStop = new AbortController();
        void this.steps.after(call.timeoutMs, timerStop.signal).then(timeUp);
      } else timer = setTimeout(timeUp, call.timeoutMs);
    }
    const branch = branchOf(call);
    const model = this.options.modelFor(persona.id);
    // Published as the request goes out, not before it is built: what comes of the call (a delta, a retry,
    // a tool, a failure) follows it, but the model is not kept waiting for the bus and the journal. A call
    // the step that started it announced (in its journal line) is not announced again.
    let started = this.announced.delete(call.turnId);
    const announce = () => {
      if (started) return;
      started = true;
      host.publish(this.startedEvent(call, persona.id, model));
    };
    try {
      // The budget is checked when the call really starts, so the usage of the call before counts.
      const overBudget = this.options.budget?.check();
      if (overBudget) {
        announce();
        host.send({ type: 'budget_exceeded', reason: overBudget, turnId: call.turnId });
        return;
      }
      const turn = this.options.turns.request(call, host.snapshot(), persona);
      const request: ChatRequest = {
        model,
        messages: turn.messages,
        tools: turn.tools,
        signal: controller.signal,
        onRetry: (i) => {
          announce();
          host.publish(event('retry', { turn_id: call.turnId, persona: persona.id, attempt: i.attempt, wait_ms: i.waitMs, reason: i.reason }));
        },
        meta: turn.meta,
        onDelta: (d) => {
          if (controller.signal.aborted) return;
          announce();
          host.publish(
            event(
              'agent_delta',
              d.type === 'text' ? { turn_id: call.turnId, persona: persona.id, text: d.text, ...branch } : { turn_id: call.turnId, persona: persona.id, tool_arguments: d.text, ...branch },
            ),
          );
        },
      };
      if (turn.toolChoice) request.toolChoice = turn.toolChoice;
      if (turn.agentTools) announce();
      // Warming follows the turn from here: it only notes the call now, and predicts and warms once the answer streams.
      if (call.attempt === 1 && call.branch === undefined) this.options.warming?.started(call, persona, host.snapshot(), this.warmingPort(call));
      const answer = turn.agentTools
        ? this.withTools(call, persona.id, request, turn.agentTools, controller.signal)
        : this.options.model.generate(request).then((response) => ({ response, changes: undefined, undo: undefined }));
      announce();
      const { response, changes, undo } = await answer;
      if (controller.signal.aborted) {
        if (timedOut) host.send({ type: 'agent_failed', turnId: call.turnId, reason: `timed out after ${call.timeoutMs} ms` });
        return;
      }
      if (response.usage && this.options.reportUsage) {
        const total = response.usage.promptTokens + response.usage.completionTokens;
        host.publish(
          event('usage', {
            persona: persona.id,
            model: response.model,
            prompt_tokens: response.usage.promptTokens,
            completion_tokens: response.usage.completionTokens,
            cost: null,
            total_tokens: total,
            total_cost: null,
          }),
        );
      }
      const result = this.options.turns.result(call, response);
      host.send(changes && result.type === 'agent_replied' ? { ...result, changes } : result);
      // The answer is journaled (send steps synchronously): the turn's file changes stay.
      if (undo && turn.agentTools) {
        const workspace = turn.agentTools.workspace;
        const commit = undo.commit().finally(() => {
          if (this.committing.get(workspace) === commit) this.committing.delete(workspace);
        });
        this.committing.set(workspace, commit);
        await commit;
      }
    } catch (error) {
      announce();
      if (timedOut) host.send({ type: 'agent_failed', turnId: call.turnId, reason: `timed out after ${call.timeoutMs} ms` });
      if (error instanceof AbortedError || controller.signal.aborted) return;
      const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
      host.send({ type: 'agent_failed', turnId: call.turnId, reason });
    } finally {
      if (timer) clearTimeout(timer);
      timerStop?.abort();
      this.controllers.delete(call.turnId);
      untrack?.();
    }
  }
}
