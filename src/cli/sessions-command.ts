import { formatSessionTable, summarise } from '../store/summary.js';
import type { Store } from '../store/store.js';

/** `troupe sessions`: one row per stored session (newest first); unreadable files are named with the reason. */
export async function listSessions(store: Store, write: (line: string) => void, where: string): Promise<void> {
  const entries = await store.list();
  if (entries.length === 0) {
    write(`no sessions in ${where} — start one with troupe run "<brief>"`);
    return;
  }
  const rows = entries.flatMap((e) => ('file' in e ? [summarise(e.file, e.lockedBy)] : []));
  if (rows.length > 0) for (const line of formatSessionTable(rows)) write(line);
  for (const e of entries) if ('error' in e) write(`! ${e.id}: unreadable — ${e.error}`);
}
