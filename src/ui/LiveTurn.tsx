import React from 'react';
import { Box, Text } from 'ink';
import type { MachineDefinition } from '../engine/definition.js';
import { formatPath } from '../report/names.js';
import type { LiveTurn as Live } from './view-model.js';

/** The last `maxLines` lines of `text` wrapped at `width` (the live area must stay short). */
export function tailLines(text: string, width: number, maxLines: number): string[] {
  const w = Math.max(10, width);
  const lines = text.split('\n').flatMap((l) => {
    if (l.length <= w) return [l];
    const out: string[] = [];
    for (let i = 0; i < l.length; i += w) out.push(l.slice(i, i + w));
    return out;
  });
  return lines.slice(-maxLines);
}

/** Props of the live turn. */
export interface LiveTurnProps {
  live: Live | null;
  def: MachineDefinition;
  width: number;
  maxLines: number;
}

/** The turn being answered now, streaming as deltas arrive. */
export function LiveTurn({ live, def, width, maxLines }: LiveTurnProps): React.JSX.Element | null {
  if (!live) return null;
  const lines = tailLines(live.text, width - 2, maxLines);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold color="green">▸ {formatPath(def, live.path)}</Text>
        <Text dimColor> is answering…{live.attempt > 1 ? ` (repair round ${live.attempt})` : ''} · {live.model}</Text>
      </Text>
      {lines.map((line, i) => (
        <Text key={i} wrap="truncate-end">{'  '}{line}</Text>
      ))}
    </Box>
  );
}
