import type React from 'react';
import { Box, Text } from 'ink';
import type { MachineDefinition } from '../engine/definition.js';
import { visitCount, type SessionState } from '../engine/session.js';
import { keyOf, planOf } from '../workflow/run/frames.js';
import { terminalSafe as safe } from '../report/terminal-safe.js';

/** Props of the workflow tree. */
export interface WorkflowTreeProps {
  def: MachineDefinition;
  session: SessionState;
}

const MARK = { running: '▸', done: '✓', failed: '✗', cancelled: '–', pending: '·', skipped: '–' } as const;

/** One row per running (sub-)workflow: its states, the current one highlighted, visit counts; then the branches of a fan-out (their agents are on the live lines). */
export function WorkflowTree({ def, session }: WorkflowTreeProps): React.JSX.Element | null {
  const root = def.workflow;
  const frames = session.workflow?.frames ?? [];
  if (!root) return null;
  const rows = frames.length > 0 ? frames : [{ plan: [], prefix: [], state: root.start }];
  const label = Math.max(...rows.map((f) => planOf(root, f).name.length)) + 1;
  const top = frames.at(-1);
  return (
    <Box flexDirection="column" borderStyle="single" borderLeft={false} borderRight={false} borderDimColor>
      {rows.map((frame, i) => {
        const plan = planOf(root, frame);
        return (
          <Box key={i} flexDirection="row">
            <Box width={label} flexShrink={0}>
              <Text dimColor>{safe(plan.name)}</Text>
            </Box>
            <Box flexDirection="row" flexWrap="wrap" flexGrow={1}>
              {plan.states.map((st) => {
                const active = st.name === frame.state && session.status !== 'ended';
                const visits = visitCount(session, keyOf(frame, st.name));
                return (
                  <Box key={st.name} marginRight={2}>
                    <Text>
                      <Text inverse={active && session.status === 'running'} bold={active} color={active ? 'green' : undefined}>{safe(active ? ` ${st.name} ▸ ` : st.name)}</Text>
                      {visits ? <Text dimColor> ×{visits}</Text> : null}
                    </Text>
                  </Box>
                );
              })}
            </Box>
          </Box>
        );
      })}
      {top?.branches ? (
        <Box flexDirection="row" flexWrap="wrap">
          <Box width={label} flexShrink={0}>
            <Text dimColor>branches</Text>
          </Box>
          {Object.entries(top.branches).map(([id, b]) => (
            <Box key={id} marginRight={2}>
              <Text color={b.status === 'running' ? 'green' : b.status === 'failed' ? 'red' : undefined}>
                {MARK[b.status]} {safe(id)}
              </Text>
            </Box>
          ))}
        </Box>
      ) : null}
    </Box>
  );
}
