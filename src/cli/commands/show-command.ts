import { redactDeep, redactorFrom } from '../../llm/redact.js';
import { renderShow } from '../../report/session-report.js';
import type { CliArgs } from '../args.js';
import { storeFor } from '../store-for.js';
import { complainer, printer, troupeCommand, type CliIo } from '../io.js';
import { displayedSession, resolveSessionId } from '../session-lookup.js';

/** `troupe show <id>`: the transcript with every decision (transitions and their arbitration), read-only. */
export async function run(args: CliArgs, io: CliIo): Promise<number> {
  const store = storeFor(io);
  const read = redactDeep(await store.read(await resolveSessionId(store, args.positionals[0], { pick: 'newest', troupe: troupeCommand(io) })), redactorFrom(io.env));
  const write = printer(io);
  const complain = complainer(io);
  const { def, state } = displayedSession(read, io.env, (line) => complain(`troupe: ${line}`));
  for (const line of renderShow({ ...read, state }, def)) write(line);
  return 0;
}
