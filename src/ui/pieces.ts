import { columnsOf, fitColumns, wrapRanges } from './columns.js';

/** How a piece of a line is drawn (the Ink Text styles the UI uses). */
export interface PieceStyle {
  bold?: boolean;
  dimColor?: boolean;
  color?: string;
  inverse?: boolean;
  strikethrough?: boolean;
}

/** A run of text in one style. */
export interface Piece {
  text: string;
  style?: PieceStyle;
}

/** One screen row: pieces whose columns add up to at most the width it was made for. */
export type PieceRow = Piece[];

/** The text of a row, without its styles. */
export function rowText(row: PieceRow): string {
  return row.map((p) => p.text).join('');
}

/** The columns a row takes. */
export function rowColumns(row: PieceRow): number {
  return columnsOf(rowText(row));
}

/** The pieces that cover [start, end) of their joined text. */
function slicePieces(pieces: Piece[], start: number, end: number): Piece[] {
  const out: Piece[] = [];
  let at = 0;
  for (const p of pieces) {
    const from = Math.max(start, at);
    const to = Math.min(end, at + p.text.length);
    if (to > from) out.push({ ...p, text: p.text.slice(from - at, to - at) });
    at += p.text.length;
  }
  return out;
}

/**
 * Styled pieces laid out in rows of at most `width` columns: a line break in the text starts a new row,
 * long lines wrap at spaces (see `wrapRanges`), and every row after the first is indented by `hang` columns
 * (a heading's words under its words, not under its mark). The same rows the UI draws and counts.
 */
export function wrapPieces(pieces: Piece[], width: number, hang = 0): PieceRow[] {
  const joined = pieces.map((p) => p.text).join('');
  const indent = Math.max(0, Math.min(hang, Math.floor(width / 2)));
  const rows: PieceRow[] = [];
  let lineStart = 0;
  for (const line of joined.split('\n')) {
    // The first row of a line after a break is a continuation of the item too: it hangs like the others.
    const first = rows.length === 0;
    const ranges = wrapRanges(line, first ? width : width - indent, first ? indent : 0);
    for (const [start, end] of ranges) {
      const row = slicePieces(pieces, lineStart + start, lineStart + end);
      rows.push(rows.length === 0 || indent === 0 ? row : [{ text: ' '.repeat(indent) }, ...row]);
    }
    lineStart += line.length + 1;
  }
  return rows;
}

/** A row cut to at most `columns` columns, ending in `…` when something was cut. */
export function fitRow(row: PieceRow, columns: number): PieceRow {
  if (rowColumns(row) <= columns) return row;
  const out: PieceRow = [];
  let used = 0;
  for (const p of row) {
    const w = columnsOf(p.text);
    if (used + w < columns) {
      out.push(p);
      used += w;
      continue;
    }
    // This piece crosses the edge: what fits of it, and the ellipsis, in its style.
    out.push({ ...p, text: fitColumns(`${p.text}…`, columns - used) });
    break;
  }
  return out;
}
