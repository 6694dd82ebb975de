import React from 'react';
import { Box, Text } from 'ink';
import wrapAnsi from 'wrap-ansi';
import type { MachineDefinition } from '../engine/definition.js';
import { formatPath } from '../report/names.js';
import { terminalSafe as safe } from '../report/terminal-safe.js';
import type { LiveTurn as Live } from './view-model.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** The last `maxLines` lines of `text` wrapped at word boundaries to `width` (a word longer than a line is cut). */
export function tailLines(text: string, width: number, maxLines: number): string[] {
  const w = Math.max(10, width);
  // Made safe first: wrap-ansi keeps escape sequences, and a streamed one must not reach the terminal.
  const lines = wrapAnsi(safe(text), w, { hard: true }).split('\n');
  return lines.slice(-maxLines);
}

/** Props of the live turn. */
export interface LiveTurnProps {
  live: Live | null;
  def: MachineDefinition;
  width: number;
  maxLines: number;
  /** Now, in the same clock as `live.startedAt` (epoch ms); drives the spinner and the elapsed time. */
  now: number;
}

/** The turn being answered now: a spinner and the time waited until the first words, then the words as they stream. */
export function LiveTurn({ live, def, width, maxLines, now }: LiveTurnProps): React.JSX.Element | null {
  if (!live) return null;
  const lines = tailLines(live.text, width - 2, maxLines);
  const waited = Math.max(0, Math.floor((now - live.startedAt) / 1000));
  const spin = SPINNER[Math.floor(Math.max(0, now - live.startedAt) / 100) % SPINNER.length];
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold color="green">▸ {safe(formatPath(def, live.path))}</Text>
        <Text dimColor> is answering…{live.attempt > 1 ? ` (repair round ${live.attempt})` : ''} · {safe(live.model)}</Text>
        {live.text === '' ? <Text color="yellow"> {spin} waiting for the first words · {waited}s</Text> : <Text dimColor> · {waited}s</Text>}
      </Text>
      {lines.map((line, i) => (
        <Text key={i} wrap="truncate-end">{'  '}{line}</Text>
      ))}
    </Box>
  );
}
