import { randomUUID } from 'node:crypto';
import type { MemorySource } from '../commands/memory-source.js';
import type { ChatModel } from '../llm/chat-model.js';
import { DemoModel } from '../llm/demo-model.js';
import { PacedModel } from '../llm/paced-model.js';
import type { OpenTeam } from '../runtime/open-team.js';
import { demoProgress } from '../store/demo-progress.js';
import type { SessionFile } from '../store/session-file.js';
import { createStoredSession, openStoredSession, type StoredSession } from '../store/stored-session.js';
import type { Store } from '../store/store.js';
import { formatSessionTable, summarise } from '../store/summary.js';
import { loadPriceTable } from '../usage/price-table.js';
import { UsageMeter } from '../usage/usage-meter.js';
import { runPiped } from './run-piped.js';
import { settleMemory } from '../memory/settle.js';
import { resolveSessionId } from './session-lookup.js';

/** The demo answers instantly; in front of a person it is paced so they can watch and interject. */
export function paced(model: ChatModel, env: Record<string, string | undefined> = process.env): ChatModel {
  const pace = Number(env.TROUPE_DEMO_PACE_MS ?? 40);
  return model.offline && model.free && pace > 0 ? new PacedModel(model, pace) : model;
}

/** The `!memory` reader of a stored session, or undefined when memory is off. */
function memorySource(stored: StoredSession): MemorySource | undefined {
  const memory = stored.memory?.memory;
  return memory ? () => memory.snapshot() : undefined;
}

/** `!sessions` reads a table refreshed in the background (the store lists asynchronously). */
async function sessionsSource(store: Store): Promise<() => string[]> {
  let lines: string[] = [];
  const refresh = async () => {
    const entries = await store.list();
    const rows = entries.flatMap((e) => ('file' in e ? [summarise(e.file, e.lockedBy)] : []));
    lines = rows.length ? formatSessionTable(rows) : ['no stored sessions'];
  };
  await refresh().catch(() => undefined);
  return () => {
    void refresh().catch(() => undefined);
    return lines;
  };
}

/** Opens the Ink UI on a stored session and saves it when the user leaves. */
export async function runInteractive(stored: StoredSession, store: Store, model: ChatModel): Promise<void> {
  const { runUi } = await import('../ui/run-ui.js');
  const memory = memorySource(stored);
  try {
    const history = [...stored.handle.data.events];
    await runUi({
      runner: stored.runner,
      model: { label: model.label, offline: model.offline ?? false },
      sessions: await sessionsSource(store),
      history,
      // Resuming re-runs a turn that was in flight; start it once the UI listens, so it streams.
      onReady: () => stored.resume(),
      ...(memory ? { memory } : {}),
    });
  } finally {
    await stored.close();
  }
}

/** What `troupe` with no command needs. */
export interface DefaultOptions {
  team: OpenTeam;
  teamDir: string;
  maxTurns?: number;
  model: ChatModel;
  mode: 'fsm' | 'simple';
  json: boolean;
  store: Store;
  write: (line: string) => void;
  defaultBrief: string;
  tty: boolean;
}

/** `troupe` with no command: the UI on a TTY, else a session driven by piped lines; either way stored. Returns the session id. */
export async function openDefault(options: DefaultOptions): Promise<string> {
  const { team, store } = options;
  const interactive = options.tty && !options.json;
  const model = interactive ? paced(options.model) : options.model;
  const meter = new UsageMeter(loadPriceTable(process.env));
  const sessionId = randomUUID();
  const stored = await createStoredSession({ store, team, teamDir: options.teamDir, model, mode: options.mode, meter, sessionId, ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}) });
  if (interactive) {
    await runInteractive(stored, store, options.model);
    return sessionId;
  }
  try {
    const { createInterface } = await import('node:readline');
    const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
    const memory = memorySource(stored);
    const sessions = await sessionsSource(store);
    const beforeEnd = () => settleMemory(stored.memory, 5_000);
    await runPiped({ team, runner: stored.runner, json: options.json, write: options.write, lines, defaultBrief: options.defaultBrief, sessions, beforeEnd, ...(memory ? { memory } : {}) });
  } finally {
    await stored.close();
  }
  return sessionId;
}

/** `troupe resume` on a TTY: reopens the session in the UI, re-running a turn that was in flight. */
export async function resumeInteractive(options: { store: Store; id?: string; model: (file: SessionFile) => ChatModel }): Promise<string> {
  const id = await resolveSessionId(options.store, options.id);
  let chosen: ChatModel | null = null;
  const meter = new UsageMeter(loadPriceTable(process.env));
  const stored = await openStoredSession({
    store: options.store,
    id,
    meter,
    model: (file) => {
      chosen = options.model(file);
      return paced(chosen);
    },
  });
  await runInteractive(stored, options.store, chosen ?? new DemoModel(demoProgress([])));
  return id;
}
