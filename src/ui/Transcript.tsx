import type React from 'react';
import { Box, Static, Text } from 'ink';
import wrapAnsi from 'wrap-ansi';
import { terminalSafe as safe } from '../report/terminal-safe.js';
import type { LogItem } from './view-model.js';
import { Volatile } from './Volatile.js';

const TONE = { info: 'gray', warn: 'yellow', error: 'red', ok: 'green' } as const;

/**
 * A turn's words, wrapped as Ink would wrap them. Given the width, each line is drawn through Volatile:
 * printed once, a message need not stay in Ink's caches of measured and wrapped texts for the session.
 */
function Words({ text, width }: { text: string; width?: number | undefined }): React.JSX.Element {
  if (width === undefined) return <Text>{text}</Text>;
  const lines = wrapAnsi(text, Math.max(1, width), { trim: false, hard: true }).split('\n');
  return (
    <Box flexDirection="column">
      {lines.map((line, i) => (
        <Volatile key={i} text={line} width={width} />
      ))}
    </Box>
  );
}

/** One finished transcript item (`width`: the columns its words may take, when known). */
export function LogLine({ item, width }: { item: LogItem; width?: number | undefined }): React.JSX.Element {
  switch (item.kind) {
    case 'turn':
      return (
        <Box flexDirection="column" marginTop={1}>
          <Text>
            <Text bold color="cyan">▸ {safe(item.where)}</Text>
            <Text dimColor> · turn {item.turn} · </Text>
            <Text color={item.status === 'ok' ? 'magenta' : 'red'}>{safe(item.tag)}</Text>
          </Text>
          <Box paddingLeft={2}>
            <Words text={safe(item.text) || '(no words)'} width={width === undefined ? undefined : width - 2} />
          </Box>
        </Box>
      );
    case 'user':
      return (
        <Box marginTop={1}>
          <Text>
            <Text bold color="yellow">{item.first ? 'Brief › ' : 'You › '}</Text>
            <Text>{safe(item.text)}</Text>
          </Text>
        </Box>
      );
    case 'transition':
      return (
        <Box paddingLeft={2}>
          <Text dimColor>
            {safe(`${item.text}${item.reason ? ` — ${item.reason}` : ''}`)}
          </Text>
        </Box>
      );
    case 'note':
      return (
        <Box paddingLeft={2}>
          <Text color={TONE[item.tone]}>{safe(item.mark ?? '•')} {safe(item.text)}</Text>
        </Box>
      );
    case 'output':
      return (
        <Box flexDirection="column" marginTop={1} borderStyle="single" borderColor={item.tone === 'error' ? 'red' : 'gray'} paddingX={1}>
          <Text bold>{safe(item.title)}</Text>
          {item.lines.map((line, i) => (
            <Text key={i} color={item.tone === 'error' ? 'red' : undefined}>{safe(line) || ' '}</Text>
          ))}
        </Box>
      );
  }
}

/** The finished transcript (display items, styled), rendered once each in `<Static>` so it scrolls above the live area. */
export function Transcript({ items, width }: { items: LogItem[]; width?: number }): React.JSX.Element {
  return <Static items={items}>{(item) => <LogLine key={item.id} item={item} width={width} />}</Static>;
}
