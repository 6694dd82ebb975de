import type React from 'react';
import { Box, Text } from 'ink';
import { terminalSafe as safe } from '../report/terminal-safe.js';
import { wrapPieces, type PieceRow } from './pieces.js';
import { Row } from './Rows.js';

/** A buffer as one screen line: the line breaks of a pasted text shown as ⏎, control characters made visible. */
export function shownLine(value: string): string {
  return safe(value.replace(/\n/g, ' ⏎ '));
}

/** The typed line in rows of `width` columns (one column kept for the cursor), continuation rows under the text. */
export function inputRows(value: string, width: number, disabled = false): PieceRow[] {
  return wrapPieces([{ text: '› ', style: { color: disabled ? 'gray' : 'yellow', bold: true } }, { text: shownLine(value) }], Math.max(3, width - 1), 2);
}

/** Props of the input line. */
export interface InputLineProps {
  value: string;
  hint: string;
  /** Tab candidates to list when a completion was ambiguous. */
  candidates: string[];
  disabled?: boolean;
  /** The terminal's columns (the typed line wraps within them). */
  width?: number;
  /** The most rows the typed line takes: a longer one shows its end, marked `…` where it is cut. */
  maxRows?: number;
}

/** What the user can do now, the completion candidates, and the line being typed with a cursor. */
export function InputLine({ value, hint, candidates, disabled = false, width = 80, maxRows = 3 }: InputLineProps): React.JSX.Element {
  const all = inputRows(value, width, disabled);
  const rows = all.slice(-Math.max(1, maxRows));
  if (rows.length < all.length) rows[0] = [{ text: '… ', style: { dimColor: true } }, ...rows[0]!.slice(1)];
  return (
    <Box flexDirection="column">
      {candidates.length > 1 ? (
        <Text color="cyan" wrap="truncate-end">
          {safe(candidates.join('  '))}
        </Text>
      ) : null}
      <Text dimColor wrap="truncate-end">
        {safe(hint)}
      </Text>
      {rows.map((row, i) => (
        <Row key={i} row={i === rows.length - 1 && !disabled ? [...row, { text: ' ', style: { inverse: true } }] : row} />
      ))}
    </Box>
  );
}
