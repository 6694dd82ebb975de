import { redactDeep, redactorFrom } from '../../llm/redact.js';
import { renderMarkdown } from '../../report/session-report.js';
import { terminalSafe, terminalSafeJson } from '../../report/terminal-safe.js';
import { UsageError, type CliArgs } from '../args.js';
import { storeFor } from '../store-for.js';
import type { CliIo } from '../io.js';
import { displayDefinition, resolveSessionId } from '../session-lookup.js';

/** `troupe export <id> [md|json] [--format F]`: the session as Markdown, or as its document with its events (JSON). */
export async function run(args: CliArgs, io: CliIo): Promise<number> {
  const [wanted, positionalFormat] = args.positionals;
  const fmt = args.format ?? positionalFormat ?? 'md';
  if (fmt !== 'md' && fmt !== 'json') throw new UsageError(`format must be md or json, got "${fmt}"`);
  const store = storeFor(io);
  // Stored values were redacted when written, but perhaps by an older troupe or under other secrets.
  const read = redactDeep(await store.read(await resolveSessionId(store, wanted, 'newest')), redactorFrom(io.env));
  const text = fmt === 'json' ? `${terminalSafeJson(JSON.stringify({ ...read.doc, events: read.events }, null, 2))}\n` : terminalSafe(renderMarkdown(read, displayDefinition(read.doc)));
  io.stdout.write(text);
  return 0;
}
