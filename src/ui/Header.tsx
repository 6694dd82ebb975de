import type React from 'react';
import { Box, Text } from 'ink';
import type { Mode } from '../engine/session.js';
import { terminalSafe as safe } from '../report/terminal-safe.js';

/** Props of the header. */
export interface HeaderProps {
  team: string;
  /** The routing mode of a team, or `workflow`. */
  mode: Mode | 'workflow';
  model: string;
  offline: boolean;
  /** Whether the demo notice gets its own row (a very short terminal leaves it out; the team line still says demo model). */
  notice?: boolean;
}

/**
 * The team and its mode (FSM / SIMPLE), or `workflow <name>` (a workflow has no mode), and the model, as `troupe run`
 * heads its transcript; a clear notice when running on the offline demo model.
 */
export function Header({ team, mode, model, offline, notice = true }: HeaderProps): React.JSX.Element {
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold color="cyan">
          troupe
        </Text>
        {mode === 'workflow' ? (
          <Text>
            {' · '}
            <Text bold color="blue">
              workflow
            </Text>{' '}
            {safe(team)}
          </Text>
        ) : (
          <Text>
            {' · '}
            {safe(team)}
            {' · '}
            <Text bold color={mode === 'fsm' ? 'green' : 'magenta'}>
              {mode.toUpperCase()}
            </Text>
          </Text>
        )}
        <Text dimColor> · {offline ? 'demo model' : safe(model)}</Text>
      </Text>
      {offline && notice ? (
        <Text color="yellow" wrap="truncate-end">
          DEMO MODE · offline scripted model · set OPENAI_API_KEY for real answers
        </Text>
      ) : null}
    </Box>
  );
}
