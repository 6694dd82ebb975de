import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TroupeEvent } from '../engine/event-map.js';
import { event } from '../engine/event-map.js';
import type { Mode, SessionState } from '../engine/session.js';
import { initialState } from '../engine/step.js';
import type { ChatModel } from '../llm/chat-model.js';
import { modelFromEnv } from '../llm/from-env.js';
import type { Evaluator } from '../kernel/effect-runner.js';
import { openTeam, type OpenTeam } from '../team/open-team.js';
import { teamDir as shippedTeamDir } from '../package-root.js';
import { UserError } from '../errors.js';
import { SessionFileError } from '../store/load-file.js';
import { SESSION_SCHEMA_VERSION, type SessionDocument } from '../store/session-file.js';
import type { Store } from '../store/store.js';
import { loadPriceTable } from '../usage/price-table.js';
import { UsageMeter } from '../usage/usage-meter.js';
import type { WorkflowPlan } from '../workflow/run/plan.js';
import { assembleSession } from './assemble.js';
import { foldJournal } from './fold.js';
import { lastSeqOf } from './at-step.js';
import { JournalRecorder } from './recorder.js';
import { restoreMeter } from './restore-meter.js';
import { resumeNote } from './resume-note.js';
import { teamKind, type Tiers } from './session-kind.js';
import { documentSealed, sealSources, type SessionSources } from './source-seal.js';
import { networkGrant, networkRefused, type NetworkGrant } from './plan-grants.js';
import { storedPlanProblem, storedTeamProblem, trustedPlanSource } from './stored-plan-trust.js';
import type { TroupeSession } from './troupe-session.js';
import { replayedFrom } from '../llm/replay-label.js';

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
  model?: ChatModel | ((stored: { events: () => Promise<TroupeEvent[]>; label: string } | null) => ChatModel | Promise<ChatModel>);
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
  /** Journal lines the stored document may lag behind before a checkpoint rewrites it (default 32; tests of the document's writes use 0: every checkpoint). */
  checkpointLines?: number;
  meter?: UsageMeter;
  /** Use the rolling memory (default: team.json `memory.enabled`). */
  memory?: boolean;
  env?: Record<string, string | undefined>;
  /** How many recent events the session keeps in memory for its UI (older ones are read from the store). */
  recentEvents?: number;
  /** Where workflow code runs (default for a workflow session: a QuickJS sandbox of its own, closed when the session stops). */
  evaluator?: Evaluator;
  /** False: a workflow's steps leave every evaluation that runs code to `evaluator` instead of running the host tier on it (benches of the sandbox itself; default true). */
  tierInStep?: boolean;
  /** The directory a resumed workflow's stored plan is checked from: its workflow loaded again, its `workspace.from` (default: the process's). */
  cwd?: string;
  /** The roles folder or file a resumed workflow's agents are checked against (--roles; default: TROUPE_ROLES). */
  roles?: string;
  /** The workflow the user names for a resumed workflow session (--workflow): its file, not the document's, caps what the stored agents may do. */
  namedWorkflow?: string;
  /** Where agents with tools work (default: the store's directory for the session's files, else a temporary directory). */
  workspaceRoot?: string;
  /** Model ids for the tiers, for this session only (as TROUPE_MODEL_BASE / _SMART / _FAST would give them). */
  tiers?: Tiers;
  /** Commands under the `ask` policy go to the user (`!allow` / `!deny`); without this they are refused (headless). */
  askCommands?: boolean;
  /**
   * A workflow whose agent turns its commands' network on (`command_policy.network`) runs only with the user's
   * consent: true (--allow-network), or asked of the user when the agent is known. Default: refused in one line.
   */
  allowNetwork?: boolean | ((grant: NetworkGrant) => boolean | Promise<boolean>);
}

/** The seal a new document keeps, when this user has a key. */
function sealOf(sources: SessionSources, env: Record<string, string | undefined>): { seal?: string } {
  const seal = sealSources(sources, env);
  return seal === null ? {} : { seal };
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
 * The one composition root of the embedded backend: picks the kind of session (the team, or a workflow
 * run with the team's personas and tiers), creates it in the store or reopens it (its checkpoint with the
 * journal after it folded in), and assembles it around the kernel with the journal file and the local
 * effect runner as its ports. Every CLI path, the UI, `troupe serve` and embedders start here.
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
    // The document names its team directory and workflow file: trusted as this user's troupe sealed them, or as the user names them.
    const sealed = doc ? documentSealed(doc, env) : false;
    const teamProblem = doc && options.team === undefined ? storedTeamProblem(doc.team.dir, sealed) : null;
    if (teamProblem) throw new SessionFileError(`${handle!.location}: ${teamProblem} — name the team yourself: troupe resume ${doc!.id.slice(0, 8)} --team <dir>`);
    const { team, dir } = resolveTeam(options, env, doc);
    const plan = options.workflow ?? doc?.workflow?.plan;
    if (doc && !plan && options.namedWorkflow !== undefined)
      throw new UserError(`--workflow ${options.namedWorkflow}: session ${doc.id} runs the team ${doc.team.name}, not a workflow — resume it without --workflow`);
    if (doc?.workflow && !plan)
      throw new SessionFileError(
        `${handle!.location}: workflow: the session runs the workflow ${doc.workflow.name}, but its plan was not stored — start it again with troupe run --workflow ${doc.workflow.name}`,
      );
    const sources = { cwd: options.cwd ?? process.cwd(), env, team: team.loaded, ...(options.roles !== undefined ? { roles: options.roles } : {}) };
    const trusted =
      !options.workflow && plan && doc ? trustedPlanSource(plan, sources, { sealed, id: doc.id, ...(options.namedWorkflow !== undefined ? { named: options.namedWorkflow } : {}) }) : null;
    const stored = trusted === null ? null : 'problem' in trusted ? trusted.problem : storedPlanProblem(trusted, sources);
    if (stored) throw new SessionFileError(`${handle!.location}: ${stored}`);
    // A workflow from anywhere (the internet) may ask for the network: its commands could send the workspace out, or
    // reach this machine's loopback services. Never granted by the file alone.
    const network = plan ? networkGrant(plan) : null;
    const allowNetwork = options.allowNetwork;
    if (network && !(typeof allowNetwork === 'function' ? await allowNetwork(network) : allowNetwork === true)) throw new UserError(networkRefused(network));
    // An unsealed document the user vouched for by naming its sources is sealed with them: the next resume needs no naming again.
    if (doc && handle && !sealed && (typeof options.team === 'string' || options.namedWorkflow !== undefined)) {
      const source = trusted && !('problem' in trusted) ? trusted.source : null;
      handle.vouch({
        team: { ...doc.team, dir },
        ...(doc.workflow && plan && source !== null ? { workflow: { ...doc.workflow, source, plan: { ...plan, source } } } : {}),
        ...sealOf({ teamDir: dir, workflowSource: source }, env),
      });
    }
    const maxTurns = options.maxTurns ?? doc?.team.maxTurns;
    const tiers = options.tiers ? { tiers: options.tiers } : {};
    const kind = plan
      ? (await import('./workflow-kind.js')).workflowKind(plan, team, { env, ...tiers, ...(maxTurns !== undefined ? { maxTurns } : {}), tierInStep: options.tierInStep !== false })
      : teamKind(team, { env, ...tiers });
    const def = kind.def;
    const storedEvents = doc && store ? async () => (await store.read(doc.id)).events : null;
    const chosen = typeof options.model === 'function' ? await options.model(doc && storedEvents ? { events: storedEvents, label: doc.model } : null) : (options.model ?? modelFromEnv(env));
    const id = doc?.id ?? options.id ?? randomUUID();
    const mode = options.mode ?? doc?.mode ?? 'fsm';
    const tail = opened?.tail ?? [];
    const base = doc ? doc.checkpoint.snapshot : initialState(def, { id, mode });
    const state: SessionState = doc ? foldJournal(def, base, tail) : base;
    const tailEvents = tail.flatMap((r) => r.events as unknown as TroupeEvent[]);
    // Not Math.max(...seqs): one argument per event overflowed the stack past ~120,000 events after the checkpoint.
    const lastSeq = Math.max(doc?.checkpoint.lastSeq ?? 0, lastSeqOf(tail));
    const meter = options.meter ?? new UsageMeter(loadPriceTable(env));
    const usageNote = doc && storedEvents ? await restoreMeter(meter, { saved: doc.checkpoint.usage, tail: tailEvents, all: storedEvents, location: handle!.location }) : null;

    if (!handle && store) {
      const now = new Date(clock()).toISOString();
      handle = await store.create({
        schema: SESSION_SCHEMA_VERSION,
        id,
        team: { name: team.def.name, dir, ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}) },
        ...(plan ? { workflow: { name: plan.name, source: plan.source, plan } } : {}),
        ...sealOf({ teamDir: dir, workflowSource: plan?.source ?? null }, env),
        model: chosen.label,
        mode,
        brief: options.brief ?? '',
        createdAt: now,
        updatedAt: now,
        base: state,
        // An empty table of transitions, not none (a checkpoint from before they were kept): the document may stay the created one for 32 lines, and listings fold what the journal adds to it.
        checkpoint: { records: 0, lastSeq: 0, snapshot: state, memory: null, usage: null, transitions: {} },
      });
    }
    const journalHandle = handle;
    const records = (doc?.checkpoint.records ?? 0) + tail.length;
    const { session, publish } = await assembleSession({
      kind,
      team,
      state,
      lastSeq,
      clock,
      model: chosen,
      meter,
      journal: journalHandle
        ? (sources) => new JournalRecorder(journalHandle, records, state, { clock, ...(options.checkpointLines !== undefined ? { checkpointLines: options.checkpointLines } : {}), ...sources })
        : null,
      memory: options.memory ?? team.loaded.team.memory.enabled,
      savedMemory: doc?.checkpoint.memory ?? null,
      ...(doc && doc.checkpoint.transitions !== undefined ? { savedTransitions: doc.checkpoint.transitions } : {}),
      history: storedEvents,
      tail: tailEvents,
      workspaceRoot: options.workspaceRoot ?? store?.filesOf?.(id) ?? join(tmpdir(), 'troupe-runs', id),
      // A store on disk keeps a session's files in `<data dir>/runs/<id>`.
      ...(store?.filesOf ? { dataDir: dirname(dirname(store.filesOf(id))) } : {}),
      askCommands: options.askCommands ?? false,
      ...(options.evaluator ? { evaluator: options.evaluator } : {}),
      store,
      brief: doc?.brief || options.brief || '',
      recent: opened?.recent ?? [],
      keep,
      graceMs: MEMORY_GRACE_MS,
      env,
      forkedFrom: doc?.forkedFrom ?? null,
    });
    if (doc) {
      publish(event('note', { text: resumeNote(def, session.getSnapshot()) }));
      if (usageNote) publish(event('note', { text: usageNote }));
      // A session that ran from a recording has nothing recorded past where it stopped: say what answers now
      // (the CLI also asks first; a server cannot, so this line is what its readers see).
      const recording = replayedFrom(doc.model);
      if (recording !== null && replayedFrom(chosen.label) === null)
        publish(event('note', { text: `this session ran from the recording ${recording}, which holds nothing past where it stopped: it goes on with ${chosen.label}` }));
    }
    return session;
  } catch (error) {
    await handle?.close();
    throw error;
  }
}
