import { applyParsed } from '../commands/execute.js';
import { parseLine } from '../commands/parse.js';
import { addUsage, NO_USAGE } from '../commands/usage-meter.js';
import { event } from '../engine/event-map.js';
import type { MemorySource } from '../commands/memory-source.js';
import type { OpenTeam } from '../runtime/open-team.js';
import type { Runner } from '../runtime/runner.js';
import { attachJsonPrinter, attachTranscriptPrinter } from '../runtime/transcript-printer.js';

/** Options for a session driven by lines from a pipe. */
export interface PipedOptions {
  team: OpenTeam;
  /** The session's runner (and its memory, for !memory), built by the caller. */
  runner: Runner;
  memory?: MemorySource;
  /** Stored sessions as table lines, for !sessions. */
  sessions?: () => string[];
  /** Awaited before the run's end is announced (lets background memory work land and print first). */
  beforeEnd?: () => Promise<void>;
  json: boolean;
  write: (line: string) => void;
  /** Input lines: the first plain line is the brief, the others are replies and commands. */
  lines: AsyncIterable<string>;
  /** Brief used when the input holds none. */
  defaultBrief: string;
}

/**
 * Runs a session from piped lines, printing the headless transcript. Each line waits until the
 * team settles (needs the user or ends), so a script of replies and commands is deterministic.
 */
export async function runPiped(options: PipedOptions): Promise<string> {
  const { team, runner, write } = options;
  if (options.json) attachJsonPrinter(runner.bus, write);
  else attachTranscriptPrinter(runner.bus, team.def, write);
  let usage = NO_USAGE;
  runner.bus.on('usage', (e) => (usage = addUsage(usage, e)));
  const host = { runner, usage: () => usage, memory: options.memory, sessions: options.sessions };
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
  if (quit) return 'user_left';
  if (runner.session.status === 'idle') {
    runner.start(options.defaultBrief);
    await runner.settled();
  }
  await options.beforeEnd?.();
  const s = runner.session;
  if (s.status === 'awaiting_user') {
    runner.publish(event('session_ended', { reason: 'awaiting_user', detail: s.awaiting?.reason ?? '' }));
    return 'awaiting_user';
  }
  return s.endReason ?? 'ended';
}
