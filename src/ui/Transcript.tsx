import type React from 'react';
import { Box, Static, Text } from 'ink';
import { terminalSafe as safe } from '../report/terminal-safe.js';
import { columnsOf, tableHang, wrapColumns } from './columns.js';
import { wrapPieces, type Piece } from './pieces.js';
import { Rows } from './Rows.js';
import type { LogItem } from './view-model.js';
import { Volatile } from './Volatile.js';

const TONE = { info: 'gray', warn: 'yellow', error: 'red', ok: 'green' } as const;

/** Columns the transcript is laid out in when the terminal does not say. */
export const DEFAULT_COLUMNS = 80;

/**
 * A turn's words wrapped to `width` columns. Each row is drawn through Volatile: printed once, a message
 * need not stay in Ink's caches of measured and wrapped texts for the session.
 */
function Words({ text, width }: { text: string; width: number }): React.JSX.Element {
  return (
    <Box flexDirection="column">
      {wrapColumns(text, width).map((line, i) => (
        <Volatile key={i} text={line} width={width} />
      ))}
    </Box>
  );
}

/** A turn's heading: where (and who), the turn, the directive it gave; its words wrap under its words, not under the ▸. */
function turnHeading(item: Extract<LogItem, { kind: 'turn' }>): Piece[] {
  const pieces: Piece[] = [
    { text: `▸ ${safe(item.where)}`, style: { bold: true, color: 'cyan' } },
    { text: ` · turn ${item.turn}`, style: { dimColor: true } },
  ];
  if (item.tag) pieces.push({ text: ' · ', style: { dimColor: true } }, { text: safe(item.tag), style: { color: item.status === 'ok' ? 'magenta' : 'red' } });
  return pieces;
}

/** How troupe's own lines (an error, a command's output) name the command the user types ("troupe resume …"). */
export type NameHints = (text: string) => string;

const asWritten: NameHints = (text) => text;

/**
 * One finished transcript item, laid out in `width` columns: no row is wider, and wrapped rows start under the words
 * they continue. `hints` words troupe's own lines (error notes, command output), never an agent's or the user's.
 */
export function LogLine({ item, width = DEFAULT_COLUMNS, hints = asWritten }: { item: LogItem; width?: number | undefined; hints?: NameHints | undefined }): React.JSX.Element {
  switch (item.kind) {
    case 'turn':
      return (
        <Box flexDirection="column" marginTop={1}>
          <Rows rows={wrapPieces(turnHeading(item), width, 2)} />
          <Box paddingLeft={2}>
            <Words text={safe(item.text) || '(no words)'} width={width - 2} />
          </Box>
        </Box>
      );
    case 'user': {
      const label = `${item.label} › `;
      return (
        <Box marginTop={1}>
          <Rows rows={wrapPieces([{ text: label, style: { bold: true, color: 'yellow' } }, { text: safe(item.text) }], width, columnsOf(label))} />
        </Box>
      );
    }
    case 'transition':
      return (
        <Box paddingLeft={2}>
          <Rows rows={wrapPieces([{ text: safe(`${item.text}${item.reason ? ` — ${item.reason}` : ''}`), style: { dimColor: true } }], width - 2, 2)} />
        </Box>
      );
    case 'note': {
      const mark = `${safe(item.mark ?? '•')} `;
      const style = { color: TONE[item.tone] };
      return (
        <Box paddingLeft={2}>
          <Rows
            rows={wrapPieces(
              [
                { text: mark, style },
                { text: safe(item.tone === 'error' ? hints(item.text) : item.text), style },
              ],
              width - 2,
              columnsOf(mark),
            )}
          />
        </Box>
      );
    }
    case 'output': {
      // Inside the border and its padding; a table's rows wrap under their second column.
      const inner = Math.max(1, width - 4);
      const color = item.tone === 'error' ? 'red' : undefined;
      return (
        <Box flexDirection="column" marginTop={1} borderStyle="single" borderColor={item.tone === 'error' ? 'red' : 'gray'} paddingX={1}>
          <Rows rows={wrapPieces([{ text: safe(item.title), style: { bold: true } }], inner)} />
          {item.lines
            .flatMap((line) => wrapColumns(safe(hints(line)), inner, tableHang))
            .map((row, i) => (
              <Text key={i} color={color}>
                {row || ' '}
              </Text>
            ))}
        </Box>
      );
    }
  }
}

/** The finished transcript (display items, styled), rendered once each in `<Static>` so it scrolls above the live area. */
export function Transcript({ items, width, hints }: { items: LogItem[]; width?: number; hints?: NameHints | undefined }): React.JSX.Element {
  return <Static items={items}>{(item) => <LogLine key={item.id} item={item} width={width} hints={hints} />}</Static>;
}
