import { createSession } from '../engine/session.js';
import type { Mode } from '../engine/definition.js';
import { event } from '../engine/event-map.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { AttachedMemory } from '../memory/attach-memory.js';
import { MemoryStateError } from '../memory/memory-state.js';
import { buildRunner, type BuiltRunner } from '../runtime/build-runner.js';
import { UsageMeter, usageState } from '../usage/usage-meter.js';
import { loadPriceTable } from '../usage/price-table.js';
import { settleMemory } from '../memory/settle.js';
import { openTeam as loadTeamDir, type OpenTeam } from '../runtime/open-team.js';
import type { Runner, RunnerOptions } from '../runtime/runner.js';
import { SessionFileError } from './load-file.js';
import { SessionRecorder } from './recorder.js';
import { SESSION_SCHEMA_VERSION, type SessionFile } from './session-file.js';
import type { SessionHandle, Store } from './store.js';

/** A session opened from (or created in) a store: its runner, recording every step to the store. */
export interface StoredSession {
  runner: Runner;
  team: OpenTeam;
  handle: SessionHandle;
  recorder: SessionRecorder;
  /** The rolling memory (null when team.json disables it); saved in the file. */
  memory: AttachedMemory | null;
  /** Usage totals and budgets; saved in the file and restored on resume. */
  meter: UsageMeter;
  /**
   * Continues where the file left off: re-runs the turn that was in flight (Runner.resume), or starts on
   * the stored brief when the process died before the first step. A no-op for a session that waits or ended.
   */
  resume(): void;
  /** Waits briefly for a summary in flight, writes the final state and releases the session. */
  close(): Promise<void>;
}

/** What both new and reopened sessions may inject. */
interface Common {
  store: Store;
  clock?: () => Date;
  /** Meters usage and enforces the team's token and cost budgets; its totals are saved in the file. */
  meter?: UsageMeter;
  /** Also called after every step, once the step is recorded. */
  onStep?: RunnerOptions['onStep'];
}

/** A new session to create in the store. */
export interface NewStoredSession extends Common {
  team: OpenTeam;
  /** The team directory, kept so the session can be reopened from any working directory. */
  teamDir: string;
  maxTurns?: number;
  model: ChatModel;
  mode: Mode;
  sessionId: string;
  /** The brief, stored at once so a session killed before its first step can still be started on resume. */
  brief?: string;
}

/** How long closing waits for a summary in flight before saving without it (its raw turns stay). */
const MEMORY_GRACE_MS = 5_000;

function wire(store: Common, team: OpenTeam, handle: SessionHandle, model: ChatModel): StoredSession {
  let built: BuiltRunner | null = null;
  // Every stored session is metered, so budgets hold and its usage totals stay current across resumes.
  const meter = store.meter ?? new UsageMeter(loadPriceTable(process.env));
  const recorder = new SessionRecorder(handle, {
    ...store,
    memory: () => built?.memory?.memory.toJSON() ?? handle.data.memory,
    usage: () => usageState(meter),
  });
  built = buildRunner({
    team,
    model,
    sessionId: handle.data.snapshot.id,
    session: handle.data.snapshot,
    usageState: handle.data.usage ?? undefined,
    memoryState: handle.data.memory ?? undefined,
    onStep: store.onStep
      ? (session, input) => {
          recorder.onStep(session, input);
          store.onStep!(session, input);
        }
      : recorder.onStep,
    ...(store.clock ? { clock: store.clock } : {}),
    meter,
  });
  const { runner, memory } = built;
  recorder.attach(runner.bus);
  const resume = () => {
    if (runner.session.status === 'idle' && handle.data.brief) runner.start(handle.data.brief);
    else runner.resume();
  };
  const close = async () => {
    await settleMemory(memory, MEMORY_GRACE_MS);
    await recorder.close();
  };
  return { runner, team, handle, recorder, memory, meter, resume, close };
}

/** Creates a session file and a runner that records into it; call `runner.start(brief)` next. */
export async function createStoredSession(options: NewStoredSession): Promise<StoredSession> {
  const now = (options.clock?.() ?? new Date()).toISOString();
  const snapshot = createSession(options.team.def, { id: options.sessionId, mode: options.mode });
  const file: SessionFile = {
    schema: SESSION_SCHEMA_VERSION,
    id: options.sessionId,
    team: { name: options.team.def.name, dir: options.teamDir, ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}) },
    model: options.model.label,
    mode: options.mode,
    brief: options.brief ?? '',
    createdAt: now,
    updatedAt: now,
    events: [],
    snapshot,
    memory: null,
    usage: null,
  };
  const handle = await options.store.create(file);
  return wire(options, options.team, handle, options.model);
}

/** A stored session to reopen. */
export interface OpenStoredOptions extends Common {
  id: string;
  /** The model to continue with; a function may choose it from the stored file (e.g. a resumed demo). */
  model: ChatModel | ((file: SessionFile) => ChatModel);
  /** Loads the team (default: the stored team directory, with the stored --max-turns). */
  openTeam?: (file: SessionFile) => OpenTeam;
}

/**
 * Opens a stored session for writing (taking its lock) into a runner at the stored state. Call
 * `runner.resume()` to re-run a turn that was in flight when the file was last written; the UI and the
 * headless `troupe resume` both start here.
 */
export async function openStoredSession(options: OpenStoredOptions): Promise<StoredSession> {
  const handle = await options.store.open(options.id);
  try {
    const file = handle.data;
    const team = options.openTeam?.(file) ?? loadTeamDir(file.team.dir, file.team.maxTurns !== undefined ? { maxTurns: file.team.maxTurns } : {});
    const model = typeof options.model === 'function' ? options.model(file) : options.model;
    let stored: StoredSession;
    try {
      stored = wire(options, team, handle, model);
    } catch (error) {
      // The memory module does not know where its state came from; the store does.
      if (error instanceof MemoryStateError) throw new SessionFileError(`${handle.location}: ${error.detail}`, { cause: error });
      throw error;
    }
    const s = file.snapshot;
    const what = s.inFlight && s.status === 'running' ? `re-running ${team.def.agents.find((a) => a.id === s.inFlight!.persona)?.name ?? s.inFlight.persona}'s turn ${s.inFlight.turnId}, which was in flight` : `status ${s.status}`;
    stored.runner.publish(event('note', { text: `session resumed at turn ${s.turn} (${what})` }));
    return stored;
  } catch (error) {
    await handle.close();
    throw error;
  }
}
