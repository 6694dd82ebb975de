import { checkEvents } from './event-schema.js';
import type { SessionFile } from './session-file.js';

/** One row of `troupe sessions`. */
export interface SessionSummary {
  id: string;
  started: string;
  brief: string;
  /** Where the session stands: the active persona's state path, or the user state. */
  state: string;
  turns: number;
  /** running (open in a process), interrupted (was running when its process died), waiting, ended. */
  status: string;
  tokens: number;
  cost: number | null;
}

const USAGE = new Set(['usage']);

/** Token and cost totals from the (well-formed) usage events of a session's log. */
export function usageTotals(file: SessionFile): { tokens: number; cost: number | null } {
  let tokens = 0;
  let cost: number | null = null;
  for (const e of checkEvents(file.events, USAGE).events) {
    if (e.type !== 'usage') continue;
    tokens += e.prompt_tokens + e.completion_tokens;
    if (e.cost !== null) cost = (cost ?? 0) + e.cost;
  }
  return { tokens, cost };
}

/** Summarises a stored session for listing; `lockedBy` is the pid holding it open, if any. */
export function summarise(file: SessionFile, lockedBy: number | null): SessionSummary {
  const s = file.snapshot;
  const state = s.status === 'running' && s.inFlight ? s.inFlight.path : s.status === 'idle' ? '—' : (s.transitions[s.transitions.length - 1]?.to ?? '—');
  let status: string;
  if (lockedBy !== null) status = `open (pid ${lockedBy})`;
  else if (s.status === 'running') status = 'interrupted';
  else if (s.status === 'awaiting_user') status = `waiting: ${s.awaiting?.code ?? 'user'}`;
  else if (s.status === 'ended') status = `ended: ${s.endReason ?? ''}`;
  else status = 'not started';
  return { id: file.id, started: file.createdAt, brief: file.brief, state, turns: s.turn, status, ...usageTotals(file) };
}

function clip(text: string, width: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length <= width ? one : `${one.slice(0, width - 1)}…`;
}

/** Formats summaries as an aligned table (id shortened to 8 characters, which commands accept as a prefix). */
export function formatSessionTable(rows: SessionSummary[]): string[] {
  const cells = rows.map((r) => [
    r.id.slice(0, 8),
    r.started.slice(0, 16).replace('T', ' '),
    clip(r.brief, 36),
    r.state,
    String(r.turns),
    clip(r.status, 40),
    r.cost !== null ? `$${r.cost.toFixed(4)}` : r.tokens > 0 ? `${r.tokens} tok` : '—',
  ]);
  const header = ['ID', 'STARTED', 'BRIEF', 'STATE', 'TURNS', 'STATUS', 'COST'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  return [header, ...cells].map((c) => c.map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i]!))).join('  ').trimEnd());
}
