import type React from 'react';
import { Box, Text } from 'ink';
import type { PieceRow } from './pieces.js';

/** One laid-out row: its pieces in their styles (a row that is blank still takes its line). */
export function Row({ row }: { row: PieceRow }): React.JSX.Element {
  if (row.every((p) => p.text === '')) return <Text> </Text>;
  return (
    <Text wrap="truncate-end">
      {row.map((p, i) => (
        <Text key={i} {...p.style}>
          {p.text}
        </Text>
      ))}
    </Text>
  );
}

/** Rows laid out by `wrapPieces` (each fits its width, so Ink neither wraps nor cuts them), one under the other. */
export function Rows({ rows }: { rows: PieceRow[] }): React.JSX.Element {
  return (
    <Box flexDirection="column">
      {rows.map((row, i) => (
        <Row key={i} row={row} />
      ))}
    </Box>
  );
}
