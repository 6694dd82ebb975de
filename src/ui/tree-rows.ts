import type { MachineDefinition } from '../engine/definition.js';
import { visitCount, type SessionState } from '../engine/session.js';
import { terminalSafe as safe } from '../report/terminal-safe.js';
import { keyOf, planOf } from '../workflow/run/frames.js';
import { columnsOf, fitColumns } from './columns.js';
import { fitRow, rowColumns, type Piece, type PieceRow } from './pieces.js';

/** One line of a tree: its label (a major, a workflow) and its entries (personas, states), each a few styled pieces. */
export interface TreeLine {
  label: string;
  entries: PieceRow[];
}

/** A tree laid out at a width: the label column's width and the rows (a line's entries wrap onto rows of their own, under the entries). */
export interface TreeLayout {
  labelWidth: number;
  rows: { label: string; entries: PieceRow }[];
}

const GAP = 2;

/** Lays the lines out in rows of at most `width` columns: entries two columns apart, wrapping under each other; an entry wider than a row is cut (pure). */
export function layoutTree(lines: TreeLine[], width: number): TreeLayout {
  const labelWidth = Math.min(Math.max(0, ...lines.map((l) => columnsOf(l.label))) + 1, Math.floor(width / 2));
  const room = Math.max(1, width - labelWidth);
  const rows: TreeLayout['rows'] = [];
  for (const line of lines) {
    let row: PieceRow = [];
    let used = 0;
    let label = fitColumns(line.label, labelWidth - 1);
    const flush = () => {
      rows.push({ label, entries: row });
      label = '';
      row = [];
      used = 0;
    };
    for (const entry of line.entries) {
      const w = rowColumns(entry);
      if (used > 0 && used + GAP + w > room) flush();
      if (used > 0) row.push({ text: ' '.repeat(GAP) });
      row.push(...(w > room ? fitRow(entry, room) : entry));
      used += (used > 0 ? GAP : 0) + Math.min(w, room);
    }
    flush();
  }
  return { labelWidth, rows };
}

/** The rows a laid-out tree takes on screen, with its top and bottom borders. */
export function treeHeight(layout: TreeLayout): number {
  return layout.rows.length + 2;
}

/** Visit count, approvals and reworks of one persona: `×2 ✓1 ↺1`. */
export function personaMarks(session: SessionState, marks: Record<string, { ok: number; back: number }>, id: string, path: string): string {
  const visits = visitCount(session, path);
  const { ok, back } = marks[id] ?? { ok: 0, back: 0 };
  return [visits ? `×${visits}` : '', ok ? `✓${ok}` : '', back ? `↺${back}` : ''].filter(Boolean).join(' ');
}

/** A team's majors and their personas: the active one highlighted, the last one bold, visit counts, ✓ approvals, ↺ reworks. */
export function teamTreeLines(def: MachineDefinition, session: SessionState, marks: Record<string, { ok: number; back: number }>): TreeLine[] {
  const waiting = session.status === 'awaiting_user' || session.status === 'idle';
  return (def.team?.majors ?? []).map((major) => {
    if (major.kind === 'user') return { label: major.id, entries: [[{ text: waiting ? ' You ◂ ' : 'You', style: waiting ? { inverse: true, color: 'yellow' } : {} }]] };
    const entries = major.children.flatMap((id): PieceRow[] => {
      const agent = def.agentIndex.get(id);
      if (!agent) return [];
      const active = session.active === id && session.status === 'running';
      const last = session.active === id && !active;
      const m = personaMarks(session, marks, id, agent.path);
      const name: Piece = { text: safe(active ? ` ${agent.name} ▸ ` : agent.name), style: { inverse: active, bold: active || last, ...(active ? { color: 'green' } : last ? { color: 'cyan' } : {}) } };
      return [m ? [name, { text: ` ${m}`, style: { dimColor: true } }] : [name]];
    });
    return { label: major.id, entries };
  });
}

const MARK = { running: '▸', done: '✓', failed: '✗', cancelled: '–', pending: '·', skipped: '–' } as const;

/** One line per running (sub-)workflow: its states, the current one highlighted, visit counts; then the branches of a fan-out. */
export function workflowTreeLines(def: MachineDefinition, session: SessionState): TreeLine[] {
  const root = def.workflow;
  if (!root) return [];
  const frames = session.workflow?.frames ?? [];
  const shown = frames.length > 0 ? frames : [{ plan: [], prefix: [], state: root.start }];
  const lines: TreeLine[] = shown.map((frame) => {
    const plan = planOf(root, frame);
    const entries = plan.states.map((st): PieceRow => {
      const active = st.name === frame.state && session.status !== 'ended';
      const visits = visitCount(session, keyOf(frame, st.name));
      const name: Piece = { text: safe(active ? ` ${st.name} ▸ ` : st.name), style: { inverse: active && session.status === 'running', bold: active, ...(active ? { color: 'green' } : {}) } };
      return visits ? [name, { text: ` ×${visits}`, style: { dimColor: true } }] : [name];
    });
    return { label: safe(plan.name), entries };
  });
  const branches = frames.at(-1)?.branches;
  if (branches) {
    const entries = Object.entries(branches).map(([id, b]): PieceRow => {
      const color = b.status === 'running' ? 'green' : b.status === 'failed' ? 'red' : undefined;
      return [{ text: `${MARK[b.status]} ${safe(id)}`, style: color ? { color } : {} }];
    });
    lines.push({ label: 'branches', entries });
  }
  return lines;
}
