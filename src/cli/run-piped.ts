import { applyParsed } from '../commands/execute.js';
import { parseLine } from '../commands/parse.js';
import { addUsage, NO_USAGE } from '../commands/usage-meter.js';
import { event } from '../engine/event-map.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { OpenTeam } from '../runtime/open-team.js';
import { Runner } from '../runtime/runner.js';
import { attachJsonPrinter, attachTranscriptPrinter } from '../runtime/transcript-printer.js';

/** Options for a session driven by lines from a pipe. */
export interface PipedOptions {
  team: OpenTeam;
  model: ChatModel;
  mode: 'fsm' | 'simple';
  json: boolean;
  write: (line: string) => void;
  sessionId: string;
  /** Input lines: the first plain line is the brief, the others are replies and commands. */
  lines: AsyncIterable<string>;
  /** Brief used when the input holds none. */
  defaultBrief: string;
  clock?: () => Date;
}

/**
 * Runs a session from piped lines, printing the headless transcript. Each line waits until the
 * team settles (needs the user or ends), so a script of replies and commands is deterministic.
 */
export async function runPiped(options: PipedOptions): Promise<string> {
  const { team, model, write } = options;
  const runner = new Runner({
    def: team.def,
    prompts: team.loaded.prompts,
    model,
    modelFor: team.modelFor,
    mode: options.mode,
    sessionId: options.sessionId,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  if (options.json) attachJsonPrinter(runner.bus, write);
  else attachTranscriptPrinter(runner.bus, team.def, write);
  let usage = NO_USAGE;
  runner.bus.on('usage', (e) => (usage = addUsage(usage, e)));
  const host = { runner, usage: () => usage };
  let quit = false;
  for await (const line of options.lines) {
    const parsed = parseLine(line, team.def);
    if (parsed.kind === 'empty') continue;
    if (!options.json) write(`› ${line.trim()}`);
    const outcome = applyParsed(parsed, host);
    if (outcome.kind === 'output' && !options.json) for (const l of [`[${outcome.title}]`, ...outcome.lines]) write(l);
    await runner.settled();
    if (outcome.kind === 'quit') {
      quit = true;
      break;
    }
  }
  if (!quit && runner.session.status === 'idle') {
    runner.start(options.defaultBrief);
    await runner.settled();
  }
  const s = runner.session;
  if (s.status === 'awaiting_user') {
    runner.publish(event('session_ended', { reason: 'awaiting_user', detail: s.awaiting?.reason ?? '' }));
    return 'awaiting_user';
  }
  return s.endReason ?? 'ended';
}
