import type React from 'react';
import { Text } from 'ink';
import type { Decision } from '../arbiter/proposal.js';
import type { MachineDefinition } from '../engine/definition.js';
import { displayName, formatPath } from '../report/names.js';
import { shownProposals } from '../report/decisions.js';
import { terminalSafe as safe } from '../report/terminal-safe.js';

/** The last arbitration: every proposal with its score and source, the winner marked, and why. */
export function Arbitration({ arbitration, def }: { arbitration: { from: string; decision: Decision } | null; def: MachineDefinition }): React.JSX.Element | null {
  if (!arbitration || arbitration.decision.proposals.length === 0) return null;
  const { decision, from } = arbitration;
  return (
    <Text wrap="wrap">
      <Text dimColor>arbiter at {safe(formatPath(def, from))}: </Text>
      {shownProposals(decision, (id) => displayName(def, id)).map((p, i) => {
        return (
          <Text key={i}>
            {i > 0 ? ' · ' : ''}
            <Text bold={p.status === 'winner'} color={p.status === 'winner' ? 'green' : p.status === 'dropped' ? 'red' : undefined} strikethrough={p.status === 'dropped'}>
              {safe(p.who)}{p.score ? ` ${p.score}` : ''}
            </Text>
            <Text dimColor> [{p.source}]{p.status === 'winner' ? ' ✓' : ''}</Text>
          </Text>
        );
      })}
      <Text dimColor> — {safe(decision.why)}</Text>
    </Text>
  );
}
