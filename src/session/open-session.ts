import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TroupeEvent } from '../engine/event-map.js';
import { event } from '../engine/event-map.js';
import type { Mode, SessionState } from '../engine/session.js';
import { initialState } from '../engine/step.js';
import type { ChatModel, RetryInfo } from '../llm/chat-model.js';
import { modelFromEnv } from '../llm/from-env.js';
import { resolveModelId } from '../llm/model-resolver.js';
import { attachMemory, type AttachedMemory } from '../memory/attach-memory.js';
import { MemoryStateError } from '../memory/memory-state.js';
import { FullHistoryPromptBuilder } from '../memory/prompt-builder.js';
import { feedMemory, seedMemory } from '../memory/seed-memory.js';
import { TranscriptFold } from '../report/transcript.js';
import { TroupeBus } from '../runtime/bus.js';
import { EffectRunner, type Evaluator, type WorkspaceSetup } from '../runtime/effect-runner.js';
import { CommandApprovals, type PendingCommand } from './approvals.js';
import { teamTurns } from '../runtime/turns.js';
import { compileWorkflow } from '../workflow/run/compile.js';
import { workflowModels } from '../workflow/run/models.js';
import type { WorkflowPlan } from '../workflow/run/plan.js';
import type { SandboxEvaluator } from '../workflow/sandbox/index.js';
import { workflowTurns } from '../workflow/run/turns.js';
import { openTeam, type OpenTeam } from '../runtime/open-team.js';
import { teamDir as shippedTeamDir } from '../runtime/team-paths.js';
import { SessionFileError } from '../store/load-file.js';
import { SESSION_SCHEMA_VERSION, type SessionDocument } from '../store/session-file.js';
import type { Store } from '../store/store.js';
import { BudgetGuard } from '../usage/budget.js';
import { MeteredModel } from '../usage/metered-model.js';
import { loadPriceTable } from '../usage/price-table.js';
import { usageState, UsageMeter } from '../usage/usage-meter.js';
import { SessionActor } from './actor.js';
import { foldJournal } from './fold.js';
import { JournalRecorder } from './recorder.js';
import { restoreMeter } from './restore-meter.js';
import { TroupeSession } from './troupe-session.js';

/** What a session is made of; everything has a default, so `openSession({})` runs the shipped team on the model from the environment. */
export interface OpenSessionOptions {
  /** The team: a compiled team, or a team directory (default: the shipped V7 studio). */
  team?: OpenTeam | string;
  /** Run this declarative workflow instead of the team (the team still gives persona roles and model tiers). */
  workflow?: WorkflowPlan;
  /** The team directory stored for resuming (default: the directory given as `team`, or the shipped team's). */
  teamDir?: string;
  maxTurns?: number;
  /** The model; a function chooses it once the stored session is known (a resumed demo continues its script). */
  model?: ChatModel | ((stored: { events: () => Promise<TroupeEvent[]> } | null) => ChatModel | Promise<ChatModel>);
  /** Where the session is saved (default: nowhere, the session lives in this process). */
  store?: Store | null;
  /** Reopen this stored session (an exact id) instead of creating one. */
  resume?: string;
  /** Id of a new session (default: a random UUID). */
  id?: string;
  mode?: Mode;
  /** The brief, stored at once so a session killed before its first step can still be started. */
  brief?: string;
  /** Epoch milliseconds (injected in tests). */
  clock?: () => number;
  meter?: UsageMeter;
  /** Use the rolling memory (default: team.json `memory.enabled`). */
  memory?: boolean;
  env?: Record<string, string | undefined>;
  /** How many recent events the session keeps in memory for its UI (older ones are read from the store). */
  recentEvents?: number;
  /** Where workflow code runs (default for a workflow session: a QuickJS sandbox of its own, closed when the session stops). */
  evaluator?: Evaluator;
  /** Where agents with tools work (default: the store's directory for the session's files, else a temporary directory). */
  workspaceRoot?: string;
  /** Model ids for the tiers, for this session only (as TROUPE_MODEL_BASE / _SMART / _FAST would give them). */
  tiers?: { base?: string; smart?: string; fast?: string };
  /** Commands under the `ask` policy go to the user (`!allow` / `!deny`); without this they are refused (headless). */
  askCommands?: boolean;
}

/** The environment variables that map tiers to the model ids given. */
function tierVariables(tiers: OpenSessionOptions['tiers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (tiers?.base) out.TROUPE_MODEL_BASE = tiers.base;
  if (tiers?.smart) out.TROUPE_MODEL_SMART = tiers.smart;
  if (tiers?.fast) out.TROUPE_MODEL_FAST = tiers.fast;
  return out;
}

/** A sandbox for a workflow's code, finding each (sub-)workflow's script.js in its plan. */
async function workflowSandbox(plan: WorkflowPlan): Promise<SandboxEvaluator> {
  const { createSandboxEvaluator } = await import('../workflow/sandbox/index.js');
  const { plansByName } = await import('../workflow/load/load-workflow.js');
  const plans = plansByName(plan);
  return createSandboxEvaluator({ scriptFor: (name) => plans.get(name)?.script ?? null });
}

/** How long stopping waits for a summary in flight before saving without it (its raw turns stay). */
const MEMORY_GRACE_MS = 5_000;

function resolveTeam(options: OpenSessionOptions, env: Record<string, string | undefined>, stored?: SessionDocument): { team: OpenTeam; dir: string } {
  const maxTurns = options.maxTurns ?? stored?.team.maxTurns;
  if (options.team && typeof options.team !== 'string') return { team: options.team, dir: options.teamDir ?? stored?.team.dir ?? shippedTeamDir() };
  const dir = typeof options.team === 'string' ? options.team : (stored?.team.dir ?? shippedTeamDir());
  return { team: openTeam(dir, maxTurns !== undefined ? { maxTurns } : {}, env), dir: options.teamDir ?? dir };
}

/**
 * The one composition root: creates (or reopens from a store) a session and wires its bus, usage
 * meter and metered model, memory, journal recorder, effect runner and actor. Every CLI path, the UI
 * and embedders start here.
 */
export async function openSession(options: OpenSessionOptions = {}): Promise<TroupeSession> {
  const env = options.env ?? process.env;
  const clock = options.clock ?? Date.now;
  const store = options.store ?? null;
  const keep = options.recentEvents ?? 500;
  const opened = options.resume !== undefined && store ? await store.open(options.resume, { recentEvents: keep }) : null;
  let handle = opened?.handle ?? null;
  try {
    const doc = opened?.handle.doc;
    const { team, dir } = resolveTeam(options, env, doc);
    const plan = options.workflow ?? doc?.workflow?.plan;
    if (doc?.workflow && !plan) throw new SessionFileError(`${handle!.location}: workflow: the session runs the workflow ${doc.workflow.name}, but its plan was not stored — start it again with troupe run --workflow ${doc.workflow.name}`);
    const maxTurns = options.maxTurns ?? doc?.team.maxTurns;
    const def = plan ? compileWorkflow(plan, maxTurns !== undefined ? { max_turns: maxTurns } : {}) : team.def;
    // Tier overrides for this session (a server takes them per session) win over the team's and the environment's.
    const tierEnv = tierVariables(options.tiers);
    const personaModels = new Map(team.loaded.personas.map((p) => [p.id, p.model]));
    const teamModelFor = options.tiers ? (id: string) => resolveModelId(personaModels.get(id) ?? 'base', team.loaded.team.models, { ...env, ...tierEnv }) : team.modelFor;
    const modelFor = plan ? workflowModels(plan, team, { ...env, ...tierEnv }) : teamModelFor;
    const storedEvents = doc && store ? async () => (await store.read(doc.id)).events : null;
    const chosen = typeof options.model === 'function' ? await options.model(storedEvents ? { events: storedEvents } : null) : (options.model ?? modelFromEnv(env));
    const id = doc?.id ?? options.id ?? randomUUID();
    const mode = options.mode ?? doc?.mode ?? 'fsm';
    const tail = opened?.tail ?? [];
    const base = doc ? doc.checkpoint.snapshot : initialState(def, { id, mode });
    const state: SessionState = doc ? foldJournal(def, base, tail) : base;
    const tailEvents = tail.flatMap((r) => r.events as unknown as TroupeEvent[]);
    const lastSeq = Math.max(doc?.checkpoint.lastSeq ?? 0, ...tailEvents.map((e) => e.seq));
    const bus = new TroupeBus(id, clock, lastSeq);
    const meter = options.meter ?? new UsageMeter(loadPriceTable(env));
    const usageNote = doc && storedEvents ? await restoreMeter(meter, { saved: doc.checkpoint.usage, tail: tailEvents, all: storedEvents, location: handle!.location }) : null;
    const model = new MeteredModel(chosen, meter);

    if (!handle && store) {
      const now = new Date(clock()).toISOString();
      handle = await store.create({
        schema: SESSION_SCHEMA_VERSION,
        id,
        team: { name: team.def.name, dir, ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}) },
        ...(plan ? { workflow: { name: plan.name, source: plan.source, plan } } : {}),
        model: chosen.label,
        mode,
        brief: options.brief ?? '',
        createdAt: now,
        updatedAt: now,
        base: state,
        checkpoint: { records: 0, lastSeq: 0, snapshot: state, memory: null, usage: null },
      });
    }
    let memory: AttachedMemory | null = null;
    let actor: SessionActor | null = null;
    const recorder = handle
      ? new JournalRecorder(handle, (doc?.checkpoint.records ?? 0) + tail.length, state, {
          clock,
          memory: () => memory?.memory.data ?? null,
          usage: () => usageState(meter),
          lastSeq: () => bus.lastSeq,
        })
      : null;
    actor = new SessionActor(def, state, bus, recorder);
    const publish = actor.publish.bind(actor);
    meter.onRecord((r) =>
      publish(event('usage', { persona: r.persona, model: r.model, prompt_tokens: r.promptTokens, completion_tokens: r.completionTokens, ...(r.cachedTokens !== undefined ? { cached_tokens: r.cachedTokens } : {}), cost: r.cost, total_tokens: r.totalTokens, total_cost: r.totalCost })),
    );

    // A workflow keeps its own contexts; the rolling memory is a team's.
    if (!plan && (options.memory ?? team.loaded.team.memory.enabled)) {
      try {
        const saved = doc?.checkpoint.memory ?? null;
        const onRetry = (i: RetryInfo) => publish(event('retry', { persona: null, attempt: i.attempt, wait_ms: i.waitMs, reason: i.reason }));
        memory = attachMemory({ bus, publish, team: team.loaded.team, model, def, reportUsage: false, env, onRetry, ...(saved !== null ? { state: saved } : {}) });
      } catch (error) {
        // The memory module does not know where its state came from; the store does.
        if (error instanceof MemoryStateError && handle) throw new SessionFileError(`${handle.location}: ${error.detail}`, { cause: error });
        throw error;
      }
      if (doc && doc.checkpoint.memory === null && storedEvents) seedMemory(memory.memory, await storedEvents());
      else for (const e of tailEvents) feedMemory(memory.memory, e);
      // Compression changes what the next prompt holds: keep it in the checkpoint soon (a crash before only costs re-summarising).
      bus.on('memory_compressed', () => {
        try {
          recorder?.checkpointIfDue();
        } catch (error) {
          actor?.stopSaving(error);
        }
      });
    }
    const transcript = memory ? null : new TranscriptFold();
    if (transcript) {
      if (storedEvents) for (const e of await storedEvents()) transcript.add(e);
      bus.on('*', (e) => transcript.add(e));
    }
    const approvals = new CommandApprovals(publish);
    const workspaces: WorkspaceSetup = {
      root: options.workspaceRoot ?? store?.filesOf?.(id) ?? join(tmpdir(), 'troupe-runs', id),
      ...(plan?.workspace ? { from: plan.workspace.from, git: plan.workspace.git } : {}),
      ...(options.askCommands ? { approve: (ask: Omit<PendingCommand, 'id'>, signal: AbortSignal) => approvals.request(ask, signal) } : {}),
    };
    // A workflow's code runs in a sandbox of its own, loaded only for workflow sessions.
    const sandbox = plan && !options.evaluator ? await workflowSandbox(plan) : null;
    const evaluator = options.evaluator ?? sandbox ?? undefined;
    const runner = new EffectRunner(
      { def, snapshot: () => actor!.getSnapshot(), send: (input) => actor!.send(input), publish },
      {
        model,
        modelFor,
        workspaces,
        turns: def.kind === 'workflow' ? workflowTurns(def) : teamTurns(def, memory ? memory.prompt : new FullHistoryPromptBuilder(transcript!), team.loaded.prompts),
        ...(evaluator ? { evaluator } : {}),
        budget: new BudgetGuard(meter, def.limits),
        reportUsage: false,
      },
    );
    actor.attach(runner);
    const session = new TroupeSession({
      actor,
      runner,
      team,
      model: chosen,
      memory,
      store,
      recorder,
      brief: doc?.brief || options.brief || '',
      recent: opened?.recent ?? [],
      keep,
      graceMs: MEMORY_GRACE_MS,
      approvals,
      ...(sandbox ? { onStop: () => sandbox.close() } : {}),
    });
    if (doc) {
      const s = actor.getSnapshot();
      const name = s.inFlight ? (def.agentIndex.get(s.inFlight.persona)?.name ?? s.inFlight.persona) : '';
      const what = s.inFlight && s.status === 'running' ? `re-running ${name}'s turn ${s.inFlight.turnId}, which was in flight` : `status ${s.status}`;
      publish(event('note', { text: `session resumed at turn ${s.turn} (${what})` }));
      if (usageNote) publish(event('note', { text: usageNote }));
    }
    return session;
  } catch (error) {
    await handle?.close();
    throw error;
  }
}
