import { randomUUID } from 'node:crypto';
import { displayNames } from '../../report/display-items.js';
import { terminalSafe } from '../../report/terminal-safe.js';
import { timelineOf } from '../../report/timeline.js';
import { forkSession } from '../../store/fork.js';
import { UsageError, type CliArgs } from '../args.js';
import { complainer, printer, troupeCommand, type CliIo } from '../io.js';
import { displayedMachine, resolveSessionId } from '../session-lookup.js';
import { storeFor } from '../store-for.js';

/**
 * `troupe fork <id> [--at STEP]`: without a step, the session's steps (its journal, one line each); with one, a
 * new session forked from it there (same definition, the journal up to the step; the source is only read),
 * which then goes on like `troupe resume`: in the UI on a terminal, else headless with piped input.
 */
export async function run(args: CliArgs, io: CliIo): Promise<number> {
  const wanted = args.positionals[0];
  if (wanted === undefined) throw new UsageError('fork needs a session: troupe fork <id> [--at STEP]', 'fork');
  const store = storeFor(io);
  const id = await resolveSessionId(store, wanted, { pick: 'newest', troupe: troupeCommand(io) });
  const write = printer(io);
  if (args.at === undefined) {
    const read = await store.read(id);
    const steps = timelineOf(read.records, displayNames(displayedMachine(read, io.env, (line) => complainer(io)(`troupe: ${line}`))));
    for (const s of steps) write(terminalSafe(`${String(s.step).padStart(5)}  ${s.title}`));
    write('');
    write(`fork at a step: ${troupeCommand(io)} fork ${id.slice(0, 8)} --at <step> (the session stays as it is)`);
    return 0;
  }
  const fork = await forkSession(store, { from: id, step: args.at, id: randomUUID(), now: new Date().toISOString() });
  if (!args.json) write(`forked session ${id} at step ${args.at} as ${fork.id}; ${id.slice(0, 8)} stays as it is`);
  const resume = await import('./resume-command.js');
  return resume.run({ ...args, positionals: [fork.id] }, io);
}
