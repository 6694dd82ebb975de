import type { ChatModel } from '../llm/chat-model.js';
import type { OpenTeam } from '../runtime/open-team.js';
import { Runner } from '../runtime/runner.js';
import { attachJsonPrinter, attachTranscriptPrinter } from '../runtime/transcript-printer.js';
import { event } from '../engine/event-map.js';
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
  if (options.store) {
    const { store, teamDir, maxTurns } = options.store;
    stored = await createStoredSession({ store, team, teamDir, model, mode: options.mode, ...(options.meter ? { meter: options.meter } : {}), sessionId: options.sessionId, brief: options.brief, ...(maxTurns !== undefined ? { maxTurns } : {}), ...(options.clock ? { clock: options.clock } : {}) });
  }
  const runner = stored?.runner ?? new Runner({
    def: team.def,
    prompts: team.loaded.prompts,
    model,
    modelFor: team.modelFor,
    mode: options.mode,
    sessionId: options.sessionId,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.meter ? { meter: options.meter } : {}),
  });
  if (options.json) attachJsonPrinter(runner.bus, options.write);
  else attachTranscriptPrinter(runner.bus, team.def, options.write);
  runner.start(options.brief);
  await runner.settled();
  const s = runner.session;
  if (s.status === 'awaiting_user') {
    runner.publish(event('session_ended', { reason: 'awaiting_user', detail: s.awaiting?.reason ?? '' }));
    await stored?.close();
    return 'awaiting_user';
  }
  await stored?.close();
  return s.endReason ?? 'ended';
}
