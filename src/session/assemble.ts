import type { TroupeEvent } from '../engine/event-map.js';
import { event } from '../engine/event-map.js';
import type { EngineEvent } from '../engine/event-map.js';
import type { SessionState } from '../engine/session.js';
import { TroupeBus } from '../kernel/bus.js';
import { DurableModel } from '../kernel/durable-model.js';
import type { EffectPort, JournalPort, JournalSources, StepRunner } from '../kernel/ports.js';
import { SessionKernel } from '../kernel/session-kernel.js';
import type { ChatModel, RetryInfo } from '../llm/chat-model.js';
import { attachMemory, type AttachedMemory } from '../memory/attach-memory.js';
import { MemoryStateError } from '../memory/memory-state.js';
import { FullHistoryPromptBuilder } from '../memory/prompt-builder.js';
import { feedMemory, seedMemory } from '../memory/seed-memory.js';
import { TranscriptFold } from '../memory/transcript.js';
import { EffectRunner, type Evaluator, type WorkspaceSetup } from '../kernel/effect-runner.js';
import type { OpenTeam } from '../team/open-team.js';
import { SessionFileError } from '../store/load-file.js';
import type { Store } from '../store/store.js';
import { BudgetGuard } from '../usage/budget.js';
import { MeteredModel } from '../usage/metered-model.js';
import { usageState, type UsageMeter } from '../usage/usage-meter.js';
import { CommandApprovals, type PendingCommand } from './approvals.js';
import type { SessionKind } from './session-kind.js';
import { TroupeSession } from './troupe-session.js';
import { learnedFrom, type StoredSessions } from '../warming/learned.js';
import { SessionWarming } from '../warming/session-warming.js';
import { TransitionFold } from '../warming/transition-fold.js';
import { predictWorkflowNext } from '../warming/workflow-predict.js';
import { WarmingSettingsSchema } from '../config/team-schema.js';
import { PARSE_ONCE } from '../config/parse-once.js';

/** Everything a session is assembled from, whichever backend keeps it. */
export interface SessionAssembly {
  kind: SessionKind;
  team: OpenTeam;
  /** The engine state to start from (a fresh session, or the stored one with its journal folded in). */
  state: SessionState;
  /** The seq of the last stored event. */
  lastSeq: number;
  clock: () => number;
  /** The model as chosen (the assembly meters it and makes its calls steps). */
  model: ChatModel;
  meter: UsageMeter;
  /** How effect work is made durable (default: directly, as embedded). */
  steps?: StepRunner;
  /** Builds the journal port (null: the session is kept nowhere). */
  journal: ((sources: JournalSources) => JournalPort) | null;
  /** Use the team's rolling memory (for kinds that are prompted). */
  memory: boolean;
  /** The stored memory state (null: none yet, or a new session). */
  savedMemory: unknown;
  /** The checkpoint's transition counts (absent: a new session, or one stored before they were kept). */
  savedTransitions?: unknown;
  /** Every stored event, oldest first, read when needed (null for a new session). */
  history: (() => Promise<TroupeEvent[]>) | null;
  /** Events stored after the checkpoint the state comes from. */
  tail: readonly TroupeEvent[];
  /** Where agents with tools work. */
  workspaceRoot: string;
  /** The data directory holding the sessions, which a workspace's copy never enters. */
  dataDir?: string;
  /** Commands under the `ask` policy go to the user (`!allow` / `!deny`); otherwise they are refused. */
  askCommands: boolean;
  /** Where workflow code runs (default: the kind's own sandbox, closed when the session stops). */
  evaluator?: Evaluator;
  store: Store | null;
  /** Where the session learns what its team's sessions did, when that is not its store (Restate: read at creation). */
  learnFrom?: StoredSessions;
  /** The stored brief (a session killed before its first step starts on it when resumed). */
  brief: string;
  /** The newest stored events of a reopened session. */
  recent: readonly TroupeEvent[];
  /** How many recent events the session keeps in memory. */
  keep: number;
  /** How long stopping waits for a summary in flight. */
  graceMs: number;
  env: Record<string, string | undefined>;
  /** The session it was forked from, and at which step (a fork's document says). */
  forkedFrom?: { id: string; step: number } | null;
}

/** The session's own transitions, from its checkpoint and the events after it (a session stored before they were kept: from its newest events). */
function openTransitions(a: SessionAssembly, bus: TroupeBus): TransitionFold {
  const fold = new TransitionFold(a.kind.def, a.savedTransitions ?? null);
  for (const e of a.savedTransitions === undefined ? a.recent : a.tail) fold.add(e);
  bus.on('*', (e) => fold.add(e));
  return fold;
}

/** A session's state warming (seed 004): predictions each turn, and prefix warming when team.json (or the workflow) asks for it. */
function openWarming(a: SessionAssembly, kernel: SessionKernel, publish: (e: EngineEvent) => void, memory: AttachedMemory | null, own: TransitionFold): SessionWarming | null {
  const def = a.kind.def;
  const workflow = def.kind === 'workflow';
  if (!workflow && def.kind !== 'team') return null;
  const settings = workflow ? (def.workflow?.warming ?? WarmingSettingsSchema.parse({}, PARSE_ONCE)) : a.team.loaded.team.warming;
  if (settings.mode === 'off') return null;
  const meter = a.meter;
  const sessions = a.store ?? a.learnFrom ?? null;
  const learned = sessions ? learnedFrom(sessions, def, a.state.id) : null;
  const warming = new SessionWarming({
    def,
    settings,
    publish,
    own: own.counts,
    ...(workflow ? { predict: predictWorkflowNext, revise: false } : {}),
    modelFor: (id) => a.kind.modelFor(id),
    model: a.model,
    // Served cached tokens at least once: the server has a prompt cache warming can fill.
    cacheReported: () => meter.session.cachedTokens > 0,
    ownPromptTokens: () => meter.session.promptTokens,
    prices: meter.prices,
    ...(learned ? { learned, ...(a.store ? {} : { learnNow: true }) } : {}),
    ...(memory ? { memorySettled: () => memory.memory.idle() } : {}),
    recent: a.recent,
  });
  kernel.bus.on('*', (e) => warming.observe(e));
  return warming;
}

/** An assembled session, the kernel's way to publish runtime facts (notes on reopening), and its effect port. */
export interface AssembledSession {
  session: TroupeSession;
  publish: (e: EngineEvent) => void;
  /** Where its effects run (a durable backend abandons the work of an invocation it gave up). */
  effects: EffectPort;
}

/**
 * Wires a session's parts around the kernel: its bus, the metered (and step-wise durable) model, the
 * rolling memory or the transcript prompts read, the approvals of `ask` commands, the effect runner and
 * the journal port. The same for every backend and kind: the backend gives the ports, the kind the rest.
 */
export async function assembleSession(a: SessionAssembly): Promise<AssembledSession> {
  const { kind, meter, state } = a;
  const def = kind.def;
  const bus = new TroupeBus(state.id, a.clock, a.lastSeq);
  // Every call is a step of the runner; the session's own calls are metered, warming requests apart.
  const durable = a.steps ? new DurableModel(a.model, a.steps) : a.model;
  const model = new MeteredModel(durable, meter);
  let memory: AttachedMemory | null = null;
  const transitions = openTransitions(a, bus);
  const journal =
    a.journal?.({
      memory: () => memory?.memory.data ?? null,
      usage: () => usageState(meter),
      transitions: () => transitions.toJSON(),
      lastSeq: () => bus.lastSeq,
      fault: (error) => kernel.stopSaving(error),
    }) ?? null;
  const kernel: SessionKernel = new SessionKernel(def, state, bus, journal);
  const publish = kernel.publish.bind(kernel);
  // A call's usage is recorded as its answer comes in, and the answer's step follows at once: one journal line.
  meter.onRecord((r) =>
    kernel.publishBeforeStep(
      event('usage', {
        persona: r.persona,
        model: r.model,
        prompt_tokens: r.promptTokens,
        completion_tokens: r.completionTokens,
        ...(r.cachedTokens !== undefined ? { cached_tokens: r.cachedTokens } : {}),
        cost: r.cost,
        total_tokens: r.totalTokens,
        total_cost: r.totalCost,
      }),
    ),
  );

  if (kind.prompted && a.memory) {
    try {
      const onRetry = (i: RetryInfo) => publish(event('retry', { persona: null, attempt: i.attempt, wait_ms: i.waitMs, reason: i.reason }));
      memory = attachMemory({ bus, publish, team: a.team.loaded.team, model, def, reportUsage: false, env: a.env, onRetry, ...(a.savedMemory !== null ? { state: a.savedMemory } : {}) });
    } catch (error) {
      // The memory module does not know where its state came from; the journal port does.
      if (error instanceof MemoryStateError && journal?.location) throw new SessionFileError(`${journal.location}: ${error.detail}`, { cause: error });
      throw error;
    }
    if (a.history && a.savedMemory === null) seedMemory(memory.memory, await a.history());
    else for (const e of a.tail) feedMemory(memory.memory, e);
    // Compression changes what the next prompt holds: keep it in the checkpoint soon (a crash before only costs re-summarising).
    bus.on('memory_compressed', () => {
      try {
        journal?.checkpointIfDue?.();
      } catch (error) {
        kernel.stopSaving(error);
      }
    });
  }
  let transcript: TranscriptFold | null = null;
  if (kind.prompted && !memory) {
    const fold = new TranscriptFold();
    if (a.history) for (const e of await a.history()) fold.add(e);
    bus.on('*', (e) => fold.add(e));
    transcript = fold;
  }
  const approvals = new CommandApprovals(publish);
  const workspaces: WorkspaceSetup = {
    root: a.workspaceRoot,
    ...(a.dataDir ? { keepOut: a.dataDir } : {}),
    ...(kind.workspace ? { from: kind.workspace.from, git: kind.workspace.git } : {}),
    ...(a.askCommands ? { approve: (ask: Omit<PendingCommand, 'id'>, signal: AbortSignal) => approvals.request(ask, signal) } : {}),
  };
  // A workflow's code runs in a sandbox of its own, opened only for kinds that have code.
  const sandbox = !a.evaluator && kind.openEvaluator ? await kind.openEvaluator() : null;
  const evaluator = a.evaluator ?? sandbox ?? undefined;
  const prompt = memory ? memory.prompt : transcript ? new FullHistoryPromptBuilder(transcript) : null;
  const warming = openWarming(a, kernel, publish, memory, transitions);
  const runner = new EffectRunner(
    { def, snapshot: () => kernel.getSnapshot(), send: (input) => kernel.send(input), publish },
    {
      model,
      modelFor: (id) => kind.modelFor(id),
      workspaces,
      turns: kind.turns(prompt),
      ...(evaluator ? { evaluator } : {}),
      budget: new BudgetGuard(meter, def.limits),
      reportUsage: false,
      ...(a.steps ? { steps: a.steps } : {}),
      ...(warming ? { warming, warmingModel: durable } : {}),
    },
  );
  kernel.attach(runner);
  const session = new TroupeSession({
    kernel,
    effects: runner,
    journal,
    team: a.team,
    model: a.model,
    meter,
    memory,
    store: a.store,
    brief: a.brief,
    recent: a.recent,
    keep: a.keep,
    graceMs: a.graceMs,
    approvals,
    workspaceRoot: a.workspaceRoot,
    forkedFrom: a.forkedFrom ?? null,
    warming,
    ...(sandbox ? { onStop: () => sandbox.close() } : {}),
  });
  return { session, publish, effects: runner };
}
