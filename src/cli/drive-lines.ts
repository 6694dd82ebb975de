import { applyParsed } from '../commands/execute.js';
import { LIMITS } from '../llm/limits.js';
import { boundedLines } from './bounded-lines.js';
import { namingCommand } from './invocation.js';
import { parseLine } from '../commands/parse.js';
import type { MemorySource } from '../commands/memory-source.js';
import type { TroupeSession } from '../session/troupe-session.js';

/** Options for a session driven by lines from a pipe. */
export interface DriveOptions {
  memory?: MemorySource;
  json: boolean;
  write: (line: string) => void;
  /** Where the lines come from: the first plain line is the brief (unless the session started), the others replies and commands. */
  input: NodeJS.ReadableStream;
  /** The command the user types (troupeCommand): the hints of a command's output (`!help`'s "troupe resume <id>") name it. */
  troupe?: () => string;
}

/** How a piped session went: whether a line was `!quit`, how many lines were read, how many were refused. */
export interface Driven {
  quit: boolean;
  lines: number;
  refused: number;
}

/**
 * Drives a session from piped lines. Each line waits until the team settles (needs the user or ends),
 * so a script of replies and commands is deterministic.
 */
export async function driveLines(session: TroupeSession, options: DriveOptions): Promise<Driven> {
  const { write } = options;
  // `!cost` reads the meter (a resumed session's totals include every call before this process).
  const host = { session, usage: () => session.usage(), memory: options.memory, warming: () => session.warming() };
  const driven: Driven = { quit: false, lines: 0, refused: 0 };
  for await (const read of boundedLines(options.input as AsyncIterable<string | Buffer>)) {
    if ('tooLong' in read) {
      write(`! that line is ${read.tooLong.toLocaleString('en-US')} characters; the limit is ${LIMITS.inputLine.toLocaleString('en-US')} — it was skipped`);
      driven.lines += 1;
      driven.refused += 1;
      continue;
    }
    const line = read.line;
    const parsed = parseLine(line, session.def);
    if (parsed.kind === 'empty') continue;
    driven.lines += 1;
    let outcome = applyParsed(parsed, host);
    if (outcome.kind === 'output' && outcome.tone === 'error') driven.refused += 1;
    if (outcome.kind === 'later') outcome = { kind: 'output', title: outcome.title, lines: await outcome.lines, tone: 'info' };
    // Text and steering commands are told by their events; a line that only answers is echoed here.
    if (outcome.kind === 'output' && !options.json) {
      write(`› ${line.trim()}`);
      write(`[${outcome.title}]`);
      for (const l of outcome.lines) write(options.troupe ? namingCommand(l, options.troupe()) : l);
    }
    await session.settled();
    if (outcome.kind === 'quit') return { ...driven, quit: true };
    if (session.fault) return driven;
  }
  return driven;
}
