import type { ChatModel } from '../llm/chat-model.js';
import type { OpenTeam } from '../runtime/open-team.js';
import { buildRunner, type BuiltRunner } from '../runtime/build-runner.js';
import { attachJsonPrinter, attachTranscriptPrinter } from '../runtime/transcript-printer.js';
import { event } from '../engine/event-map.js';
import { settleMemory } from '../memory/settle.js';
import { createStoredSession, type StoredSession } from '../store/stored-session.js';
import type { Store } from '../store/store.js';
import type { UsageMeter } from '../usage/usage-meter.js';

/** Options for a headless run. */
export interface HeadlessOptions {
  team: OpenTeam;
  model: ChatModel;
  brief: string;
  mode: 'fsm' | 'simple';
  json: boolean;
  write: (line: string) => void;
  sessionId: string;
  clock?: () => Date;
  /** Persist the session here (every step is written; `troupe resume` continues it). */
  store?: { store: Store; teamDir: string; maxTurns?: number };
  /** Meters usage and enforces the team's token and cost budgets. */
  meter?: UsageMeter;
}

/** Runs a session headless until it needs the user or ends; returns the end reason. */
export async function runHeadless(options: HeadlessOptions): Promise<string> {
  const { team, model } = options;
  let stored: StoredSession | null = null;
  let built: Pick<BuiltRunner, 'runner' | 'memory'>;
  if (options.store) {
    const { store, teamDir, maxTurns } = options.store;
    stored = await createStoredSession({ store, team, teamDir, model, mode: options.mode, ...(options.meter ? { meter: options.meter } : {}), sessionId: options.sessionId, brief: options.brief, ...(maxTurns !== undefined ? { maxTurns } : {}), ...(options.clock ? { clock: options.clock } : {}) });
    built = stored;
  } else {
    built = buildRunner({ team, model, mode: options.mode, sessionId: options.sessionId, ...(options.clock ? { clock: options.clock } : {}), ...(options.meter ? { meter: options.meter } : {}) });
  }
  const { runner, memory } = built;
  if (options.json) attachJsonPrinter(runner.bus, options.write);
  else attachTranscriptPrinter(runner.bus, team.def, options.write);
  try {
    runner.start(options.brief);
    await runner.settled();
    // Compression runs in the background; let the last one land (briefly) so its event is printed and saved.
    await settleMemory(memory, 5_000);
    const s = runner.session;
    if (s.status === 'awaiting_user') {
      runner.publish(event('session_ended', { reason: 'awaiting_user', detail: s.awaiting?.reason ?? '' }));
      return 'awaiting_user';
    }
    return s.endReason ?? 'ended';
  } finally {
    await stored?.close();
  }
}
