import { redactDeep, redactorFrom } from '../../llm/redact.js';
import { renderMarkdown } from '../../report/session-report.js';
import { terminalSafe, terminalSafeJson } from '../../report/terminal-safe.js';
import { sessionDeliverables } from '../../session/deliverables-of.js';
import { UsageError, type CliArgs } from '../args.js';
import { storeFor } from '../store-for.js';
import { complainer, troupeCommand, type CliIo } from '../io.js';
import { displayedSession, resolveSessionId } from '../session-lookup.js';

/** `troupe export <id> [md|json] [--format F]`: the session as Markdown, or as its document with its deliverables and events (JSON). */
export async function run(args: CliArgs, io: CliIo): Promise<number> {
  const [wanted, positionalFormat] = args.positionals;
  const fmt = args.format ?? positionalFormat ?? 'md';
  if (fmt !== 'md' && fmt !== 'json') throw new UsageError(`format must be md or json, got "${fmt}"`);
  const store = storeFor(io);
  // Stored values were redacted when written, but perhaps by an older troupe or under other secrets.
  const read = redactDeep(await store.read(await resolveSessionId(store, wanted, { pick: 'newest', troupe: troupeCommand(io) })), redactorFrom(io.env));
  const { def, state } = displayedSession(read, io.env, (line) => complainer(io)(`troupe: ${line}`));
  const deliverables = redactDeep(await sessionDeliverables(store, read, def), redactorFrom(io.env));
  const text =
    fmt === 'json' ? `${terminalSafeJson(JSON.stringify({ ...read.doc, deliverables, events: read.events }, null, 2))}\n` : terminalSafe(renderMarkdown({ ...read, state }, def, deliverables));
  io.stdout.write(text);
  return 0;
}
