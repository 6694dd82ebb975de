import type React from 'react';
import type { Decision } from '../arbiter/proposal.js';
import type { MachineDefinition } from '../engine/definition.js';
import { displayName, formatPath } from '../report/names.js';
import { shownProposals } from '../report/decisions.js';
import { terminalSafe as safe } from '../report/terminal-safe.js';
import { fitRow, wrapPieces, type Piece, type PieceRow } from './pieces.js';
import { Rows } from './Rows.js';

/** The last arbitration the UI shows. */
export type LastArbitration = { from: string; decision: Decision } | null;

/** The last arbitration as styled pieces: every proposal with its score and source, the winner marked, and why. */
export function arbitrationPieces(arbitration: LastArbitration, def: MachineDefinition): Piece[] {
  if (!arbitration || arbitration.decision.proposals.length === 0) return [];
  const { decision, from } = arbitration;
  const pieces: Piece[] = [{ text: `arbiter at ${safe(formatPath(def, from))}: `, style: { dimColor: true } }];
  shownProposals(decision, (id) => displayName(def, id)).forEach((p, i) => {
    if (i > 0) pieces.push({ text: ' · ' });
    const style = { bold: p.status === 'winner', strikethrough: p.status === 'dropped', ...(p.status === 'winner' ? { color: 'green' } : p.status === 'dropped' ? { color: 'red' } : {}) };
    pieces.push({ text: `${safe(p.who)}${p.score ? ` ${p.score}` : ''}`, style });
    pieces.push({ text: ` [${p.source}]${p.status === 'winner' ? ' ✓' : ''}`, style: { dimColor: true } });
  });
  pieces.push({ text: ` — ${safe(decision.why)}`, style: { dimColor: true } });
  return pieces;
}

/** The arbitration's rows at `width`, at most `maxRows` (the last one cut with `…` when there is more). */
export function arbitrationRows(arbitration: LastArbitration, def: MachineDefinition, width: number, maxRows = Number.POSITIVE_INFINITY): PieceRow[] {
  const pieces = arbitrationPieces(arbitration, def);
  if (pieces.length === 0 || maxRows <= 0) return [];
  const rows = wrapPieces(pieces, width, 2);
  if (rows.length <= maxRows) return rows;
  const kept = rows.slice(0, maxRows);
  // The last row shown says there is more.
  kept[maxRows - 1] = fitRow([...kept[maxRows - 1]!, { text: ' …', style: { dimColor: true } }], width);
  return kept;
}

/** The last arbitration, in the rows the screen plan gave it. */
export function Arbitration({ rows }: { rows: PieceRow[] }): React.JSX.Element | null {
  return rows.length > 0 ? <Rows rows={rows} /> : null;
}
