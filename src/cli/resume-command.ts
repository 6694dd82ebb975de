import { event } from '../engine/event-map.js';
import type { ChatModel } from '../llm/chat-model.js';
import { DemoModel } from '../llm/demo-model.js';
import { modelFromEnv } from '../llm/from-env.js';
import type { OpenTeam } from '../runtime/open-team.js';
import { formatPath } from '../runtime/format.js';
import { attachJsonPrinter, attachTranscriptPrinter } from '../runtime/transcript-printer.js';
import { demoProgress } from '../store/demo-progress.js';
import type { SessionFile } from '../store/session-file.js';
import { openStoredSession } from '../store/stored-session.js';
import type { Store } from '../store/store.js';
import { resolveSessionId } from './session-lookup.js';

/** Options for a headless resume. */
export interface ResumeOptions {
  store: Store;
  /** Session id or prefix; when absent, the most recently updated session that can be continued. */
  id?: string;
  json: boolean;
  write: (line: string) => void;
  model: (file: SessionFile) => ChatModel;
  clock?: () => Date;
  openTeam?: (file: SessionFile) => OpenTeam;
}

/** The model to continue a stored session with: from the environment; the demo continues its script where it stopped. */
export function resumeModel(env: Record<string, string | undefined>, options: { demo?: boolean } = {}): (file: SessionFile) => ChatModel {
  return (file) => {
    const model = modelFromEnv(env, options);
    return model instanceof DemoModel ? new DemoModel(demoProgress(file.events)) : model;
  };
}

/** Reopens a stored session and continues it headless until it needs the user or ends; returns its id and end reason. */
export async function resumeHeadless(options: ResumeOptions): Promise<{ id: string; reason: string }> {
  const id = await resolveSessionId(options.store, options.id);
  const stored = await openStoredSession({
    store: options.store,
    id,
    model: options.model,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.openTeam ? { openTeam: options.openTeam } : {}),
  });
  const { runner, team } = stored;
  try {
    const before = runner.session;
    if (options.json) attachJsonPrinter(runner.bus, options.write);
    else {
      const at = before.inFlight ? formatPath(team.def, before.inFlight.path) : before.status;
      options.write(`troupe · resuming session ${id} · ${team.def.name} · ${before.mode.toUpperCase()} · turn ${before.turn} · ${at}`);
      options.write(`Brief: ${before.brief}`);
      options.write('');
      attachTranscriptPrinter(runner.bus, team.def, options.write);
    }
    stored.resume();
    await runner.settled();
    const s = runner.session;
    if (s.status === 'awaiting_user') {
      if (s === before && !options.json) options.write(`⏸ waiting for you: ${s.awaiting?.reason ?? ''}`);
      runner.publish(event('session_ended', { reason: 'awaiting_user', detail: s.awaiting?.reason ?? '' }));
      return { id, reason: 'awaiting_user' };
    }
    if (s === before && s.status === 'ended' && !options.json) options.write(`Session ended: ${s.endReason ?? 'ended'}`);
    return { id, reason: s.endReason ?? s.status };
  } finally {
    await stored.close();
  }
}
