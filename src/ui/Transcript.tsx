import React from 'react';
import { Box, Static, Text } from 'ink';
import type { MachineDefinition } from '../engine/definition.js';
import { formatPath } from '../report/names.js';
import { terminalSafe as safe } from '../report/terminal-safe.js';
import type { LogItem } from './view-model.js';

const TONE = { info: 'gray', warn: 'yellow', error: 'red', ok: 'green' } as const;

/** One finished transcript item. */
export function LogLine({ item, def }: { item: LogItem; def: MachineDefinition }): React.JSX.Element {
  switch (item.kind) {
    case 'turn':
      return (
        <Box flexDirection="column" marginTop={1}>
          <Text>
            <Text bold color="cyan">▸ {safe(formatPath(def, item.path))}</Text>
            <Text dimColor> · turn {item.turn} · </Text>
            <Text color={item.status === 'ok' ? 'magenta' : 'red'}>{safe(item.tag)}</Text>
          </Text>
          <Box paddingLeft={2}>
            <Text>{safe(item.text) || '(no words)'}</Text>
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
            {safe(`${formatPath(def, item.from)} -> ${formatPath(def, item.to)} (${item.label})${item.reason ? ` — ${item.reason}` : ''}`)}
          </Text>
        </Box>
      );
    case 'note':
      return (
        <Box paddingLeft={2}>
          <Text color={TONE[item.tone]}>• {safe(item.text)}</Text>
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

/** The finished transcript, rendered once each in `<Static>` so it scrolls above the live area. */
export function Transcript({ items, def }: { items: LogItem[]; def: MachineDefinition }): React.JSX.Element {
  return <Static items={items}>{(item) => <LogLine key={item.id} item={item} def={def} />}</Static>;
}
