import { formatSessionTable } from '../../report/sessions-table.js';
import { dataDirFrom } from '../../store/store.js';
import type { CliArgs } from '../args.js';
import { storeFor } from '../store-for.js';
import { printer, type CliIo } from '../io.js';

/** `troupe sessions`: one row per stored session (newest first); unreadable ones are named with the reason. */
export async function run(_args: CliArgs, io: CliIo): Promise<number> {
  const write = printer(io);
  const entries = await storeFor(io).list();
  if (entries.length === 0) {
    write(`no sessions in ${dataDirFrom(io.env, io.cwd)} — start one with troupe run "<brief>"`);
    return 0;
  }
  const rows = entries.flatMap((e) => ('listing' in e ? [{ listing: e.listing, lockedBy: e.lockedBy }] : []));
  if (rows.length > 0) for (const line of formatSessionTable(rows)) write(line);
  for (const e of entries) if ('error' in e) write(`! ${e.id}: unreadable — ${e.error}`);
  return 0;
}
