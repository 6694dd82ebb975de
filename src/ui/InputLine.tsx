import type React from 'react';
import { Box, Text } from 'ink';
import { terminalSafe as safe } from '../report/terminal-safe.js';

/** A buffer as one screen line: the line breaks of a pasted text shown as ⏎, control characters made visible. */
export function shownLine(value: string): string {
  return safe(value.replace(/\n/g, ' ⏎ '));
}

/** Props of the input line. */
export interface InputLineProps {
  value: string;
  hint: string;
  /** Tab candidates to list when a completion was ambiguous. */
  candidates: string[];
  disabled?: boolean;
}

/** What the user can do now, the completion candidates, and the line being typed with a cursor. */
export function InputLine({ value, hint, candidates, disabled = false }: InputLineProps): React.JSX.Element {
  return (
    <Box flexDirection="column">
      {candidates.length > 1 ? <Text color="cyan" wrap="truncate-end">{safe(candidates.join('  '))}</Text> : null}
      <Text dimColor wrap="truncate-end">{safe(hint)}</Text>
      <Text>
        <Text color={disabled ? 'gray' : 'yellow'} bold>{'› '}</Text>
        <Text>{shownLine(value)}</Text>
        {disabled ? null : <Text inverse> </Text>}
      </Text>
    </Box>
  );
}
