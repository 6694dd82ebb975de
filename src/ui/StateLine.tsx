import type React from 'react';
import { Text } from 'ink';
import type { Situation } from '../commands/situation.js';
import { terminalSafe as safe } from '../report/terminal-safe.js';

/** `STRATEGIC › CEO -> pending: STRATEGIC › CFO`, what is happening now, and who is likely next (`predicted`, while a persona answers). */
export function StateLine({ situation, predicted }: { situation: Situation; predicted?: string | undefined }): React.JSX.Element {
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
      {stage ? (
        <Text color="magenta">
          {'  ·  stage '}
          {safe(stage)}
        </Text>
      ) : null}
      <Text dimColor>
        {'  ·  '}
        {safe(status)}
      </Text>
      {predicted ? (
        <Text dimColor>
          {'  ·  likely next: '}
          {safe(predicted)}
        </Text>
      ) : null}
    </Text>
  );
}
