import { redact, redactDeep, redactorFrom, type Redactor } from '../../llm/redact.js';
import { formatSessionTable } from '../../report/sessions-table.js';
import { terminalSafe } from '../../report/terminal-safe.js';
import { UserError } from '../../errors.js';
import type { ListingLine } from '../../serve/restate/records.js';
import { dataDirFrom } from '../../store/store.js';
import type { CliArgs } from '../args.js';
import { storeFor } from '../store-for.js';
import { printer, troupeCommand, type CliIo } from '../io.js';

/**
 * `troupe sessions`: one row per stored session (newest first); unreadable ones are named with the reason.
 * With `--restate-url` (or TROUPE_RESTATE_URL): the sessions on that Restate cluster, with their status now.
 */
export async function run(args: CliArgs, io: CliIo): Promise<number> {
  const write = printer(io);
  // As show and export: stored values were redacted when written, but perhaps by an older troupe or under other secrets.
  const redactor = redactorFrom(io.env);
  const restateUrl = args.restateUrl ?? io.env.TROUPE_RESTATE_URL?.trim();
  if (restateUrl) {
    const lines = await onRestate(restateUrl.replace(/\/+$/, ''));
    if (lines.length === 0) write(`no sessions on Restate at ${restateUrl} — start one with POST /v1/sessions on troupe serve --backend restate`);
    else for (const line of restateTable(lines, redactor)) write(line);
    return 0;
  }
  const entries = await storeFor(io).list();
  if (entries.length === 0) {
    write(`no sessions in ${dataDirFrom(io.env, io.cwd)} — start one with ${troupeCommand(io)} run "<brief>"`);
    return 0;
  }
  const rows = entries.flatMap((e) => ('listing' in e ? [{ listing: redactDeep(e.listing, redactor), lockedBy: e.lockedBy }] : []));
  if (rows.length > 0) for (const line of formatSessionTable(rows)) write(line);
  for (const e of entries) if ('error' in e) write(redactor(`! ${e.id}: unreadable — ${e.error}`));
  return 0;
}

async function onRestate(url: string): Promise<ListingLine[]> {
  const { loadClients } = await import('../../serve/restate/sdk.js');
  const { RestateSessions, RestateUnavailable } = await import('../../serve/restate/ingress.js');
  try {
    return await new RestateSessions(await loadClients(), url).listings();
  } catch (error) {
    // Restate down or failing is something to fix where it runs: one line, no stack.
    if (error instanceof RestateUnavailable) throw new UserError(error.message, { cause: error });
    throw error;
  }
}

const clip = (text: string, width: number) => {
  const one = terminalSafe(text.replace(/\s+/g, ' ')).trim();
  return one.length <= width ? one : `${one.slice(0, width - 1)}…`;
};

/** The sessions on Restate as an aligned table (ids shortened to 8 characters, as the API accepts a prefix), secrets redacted. */
export function restateTable(lines: readonly ListingLine[], redactor: Redactor = redact): string[] {
  const cells = redactDeep(lines, redactor).map((l) => [l.id.slice(0, 8), l.updatedAt.slice(0, 16).replace('T', ' '), l.kind, clip(l.brief, 36), String(l.turns), clip(l.statusText, 40)]);
  const header = ['ID', 'UPDATED', 'KIND', 'BRIEF', 'TURNS', 'STATUS'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  return [header, ...cells].map((c) =>
    c
      .map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}
