import type { ChatModel } from '../llm/chat-model.js';
import type { OpenTeam } from '../runtime/open-team.js';
import { Runner } from '../runtime/runner.js';
import { attachJsonPrinter, attachTranscriptPrinter } from '../runtime/transcript-printer.js';
import { event } from '../engine/event-map.js';
import { TroupeBus } from '../runtime/bus.js';
import { attachMemory } from '../memory/attach-memory.js';

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
}

/** Runs a session headless until it needs the user or ends; returns the end reason. */
export async function runHeadless(options: HeadlessOptions): Promise<string> {
  const { team, model } = options;
  const bus = new TroupeBus(options.sessionId, options.clock);
  const memory = team.loaded.team.memory.enabled ? attachMemory({ bus, team: team.loaded.team, model, def: team.def }) : null;
  const runner = new Runner({
    def: team.def,
    prompts: team.loaded.prompts,
    model,
    modelFor: team.modelFor,
    mode: options.mode,
    sessionId: options.sessionId,
    ...(options.clock ? { clock: options.clock } : {}),
    bus,
    ...(memory ? { prompt: memory.prompt } : {}),
  });
  if (options.json) attachJsonPrinter(runner.bus, options.write);
  else attachTranscriptPrinter(runner.bus, team.def, options.write);
  runner.start(options.brief);
  await runner.settled();
  // Compression runs in the background; let the last one land so its event is printed.
  await memory?.memory.idle();
  const s = runner.session;
  if (s.status === 'awaiting_user') {
    runner.publish(event('session_ended', { reason: 'awaiting_user', detail: s.awaiting?.reason ?? '' }));
    return 'awaiting_user';
  }
  return s.endReason ?? 'ended';
}
