import stringWidth from 'string-width';

// Terminal columns, measured as Ink measures them (string-width: wide CJK and emoji take two, combining
// marks none), so a line cut or wrapped here is exactly as wide on screen as Ink lays it out.

const ASCII = /^[\x20-\x7e]*$/;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The columns `text` (one line, no escape sequences) takes on a terminal. */
export function columnsOf(text: string): number {
  return ASCII.test(text) ? text.length : stringWidth(text);
}

/** The grapheme clusters of `text` with the columns each takes. */
function cells(text: string): { text: string; index: number; columns: number }[] {
  if (ASCII.test(text)) return [...text].map((ch, index) => ({ text: ch, index, columns: 1 }));
  return [...graphemes.segment(text)].map((g) => ({ text: g.segment, index: g.index, columns: stringWidth(g.segment) }));
}

/** `text` cut to at most `columns` columns, ending in `…` when something was cut. */
export function fitColumns(text: string, columns: number): string {
  if (columns <= 0) return '';
  if (columnsOf(text) <= columns) return text;
  let used = 0;
  let end = 0;
  for (const cell of cells(text)) {
    if (used + cell.columns > columns - 1) break;
    used += cell.columns;
    end = cell.index + cell.text.length;
  }
  return `${text.slice(0, end)}…`;
}

/**
 * Where one line (no newlines) breaks to fit `width` columns: [start, end) ranges into `text`. Breaks at
 * spaces, which are dropped at the break (no row starts with the space it broke at); a word longer than
 * a row is cut. Rows after the first have `hang` columns less room (they are indented by the caller).
 */
export function wrapRanges(text: string, width: number, hang = 0): [number, number][] {
  const rows: [number, number][] = [];
  const all = cells(text);
  let i = 0;
  while (i < all.length || rows.length === 0) {
    const room = Math.max(1, rows.length === 0 ? width : width - hang);
    if (rows.length > 0) while (i < all.length && all[i]!.text === ' ') i++;
    if (i >= all.length) break;
    const start = i;
    let used = 0;
    let lastSpace = -1;
    while (i < all.length && used + all[i]!.columns <= room) {
      if (all[i]!.text === ' ') lastSpace = i;
      used += all[i]!.columns;
      i++;
    }
    // A row that ends mid-word breaks at its last space, when it has one past its start.
    if (i < all.length && all[i]!.text !== ' ' && lastSpace > start) i = lastSpace;
    // A cell wider than the whole row (a wide character in one column) still moves on.
    if (i === start) i++;
    let end = i;
    // The spaces a row breaks at are dropped; those at the very end of the text are kept (a typed space shows).
    if (i < all.length) while (end > start && all[end - 1]!.text === ' ') end--;
    rows.push([all[start]!.index, end > start ? all[end - 1]!.index + all[end - 1]!.text.length : all[start]!.index]);
  }
  if (rows.length === 0) rows.push([0, 0]);
  return rows;
}

/**
 * `text` wrapped to `width` columns, line by line: words kept whole where they fit, no row starting with the
 * space it broke at, and the rows a line wraps onto indented like the line (or by `hang`, when given and
 * not past the middle of the row; else four columns in from the line's start).
 */
export function wrapColumns(text: string, width: number, hang?: (line: string) => number): string[] {
  return text.split('\n').flatMap((line) => {
    // A hang past the middle (a table's second column on a narrow terminal) would leave a thin column of
    // words: the rows wrap a little under the line's start instead.
    const want = hang ? hang(line) : leadingSpaces(line);
    const indent = Math.min(want <= width / 2 ? want : leadingSpaces(line) + 4, Math.floor(width / 2));
    return wrapRanges(line, width, indent).map(([start, end], row) => (row === 0 ? '' : ' '.repeat(indent)) + line.slice(start, end));
  });
}

/** How many spaces a line starts with. */
export function leadingSpaces(line: string): number {
  return line.length - line.trimStart().length;
}

/** The column where a table row's second column starts (after the first run of two spaces past its first word), else its indentation. */
export function tableHang(line: string): number {
  const gap = /^(\s*\S.*?\s{2,})\S/.exec(line);
  return gap ? columnsOf(gap[1]!) : leadingSpaces(line);
}
