import type { SessionListing } from '../store/listing.js';
import { statusWords } from './status-words.js';
import { terminalSafe } from './terminal-safe.js';
import { FREE_COST } from '../usage/format.js';

/** A stored session's row: its listing and the process holding it open, if any. */
export interface SessionRow {
  listing: SessionListing;
  lockedBy: number | null;
}

/** Where a stored session stands, in words: open elsewhere, interrupted, waiting (and why), ended, not started. */
export function sessionStatus(row: SessionRow): string {
  return statusWords(row.listing, row.lockedBy);
}

// Made safe before it is cut, so a cut never leaves half an escape sequence.
function clip(text: string, width: number): string {
  const one = terminalSafe(text.replace(/\s+/g, ' ')).trim();
  return one.length <= width ? one : `${one.slice(0, width - 1)}…`;
}

/** A cost (or token count) for the table: `$0.0123`, `free (demo model)` as every view words it, `1234 tok`, or `—`. */
function costCell(l: SessionListing): string {
  if (l.free && l.tokens > 0) return FREE_COST;
  return l.cost !== null ? `$${l.cost.toFixed(4)}` : l.tokens > 0 ? `${l.tokens} tok` : '—';
}

/** Formats sessions as an aligned table (id shortened to 8 characters, which commands accept as a prefix). */
export function formatSessionTable(rows: SessionRow[]): string[] {
  const cells = rows.map((r) => [
    r.listing.id.slice(0, 8),
    r.listing.createdAt.slice(0, 16).replace('T', ' '),
    clip(r.listing.brief, 36),
    r.listing.state,
    String(r.listing.turns),
    clip(sessionStatus(r), 40),
    costCell(r.listing),
  ]);
  const header = ['ID', 'STARTED', 'BRIEF', 'STATE', 'TURNS', 'STATUS', 'COST'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  return [header, ...cells].map((c) =>
    c
      .map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}
