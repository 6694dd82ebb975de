import type React from 'react';
import { Text } from 'ink';
import type { Situation } from '../commands/situation.js';
import { terminalSafe as safe } from '../report/terminal-safe.js';

/** `STRATEGIC › CEO -> pending: STRATEGIC › CFO`, and what is happening now. */
export function StateLine({ situation }: { situation: Situation }): React.JSX.Element {
  const { current, next, status, stage } = situation;
  return (
    <Text wrap="truncate-end">
      <Text bold>{safe(current)}</Text>
      {next ? (
        <Text>
          <Text dimColor>{' -> '}</Text>
          <Text color={next.kind === 'pending' ? 'yellow' : undefined} dimColor={next.kind === 'next'}>
            {next.kind}: {safe(next.to)}
          </Text>
        </Text>
      ) : null}
      {stage ? <Text color="magenta">{'  ·  stage '}{safe(stage)}</Text> : null}
      <Text dimColor>{'  ·  '}{safe(status)}</Text>
    </Text>
  );
}
