import type React from 'react';
import { Box, Text } from 'ink';
import type { MachineDefinition } from '../engine/definition.js';
import { visitCount, type SessionState } from '../engine/session.js';
import { terminalSafe as safe } from '../report/terminal-safe.js';

/** Props of the state tree. */
export interface StateTreeProps {
  def: MachineDefinition;
  session: SessionState;
  /** Approvals and reworks of each persona's work (from the events). */
  marks: Record<string, { ok: number; back: number }>;
}

/** Visit count, approvals and reworks of one persona: `×2 ✓1 ↺1`. */
export function personaMarks(session: SessionState, marks: StateTreeProps['marks'], id: string, path: string): string {
  const visits = visitCount(session, path);
  const { ok, back } = marks[id] ?? { ok: 0, back: 0 };
  return [visits ? `×${visits}` : '', ok ? `✓${ok}` : '', back ? `↺${back}` : ''].filter(Boolean).join(' ');
}

/** Majors and their personas, one major per row: active highlighted, visit counts, ✓ approvals, ↺ reworks. */
export function StateTree({ def, session, marks }: StateTreeProps): React.JSX.Element {
  const waiting = session.status === 'awaiting_user' || session.status === 'idle';
  const majors = def.team?.majors ?? [];
  const labelWidth = Math.max(...majors.map((m) => m.id.length)) + 1;
  return (
    <Box flexDirection="column" borderStyle="single" borderLeft={false} borderRight={false} borderDimColor>
      {majors.map((major) => (
        <Box key={major.id} flexDirection="row">
          <Box width={labelWidth} flexShrink={0}>
            <Text dimColor>{major.id}</Text>
          </Box>
          <Box flexDirection="row" flexWrap="wrap" flexGrow={1}>
            {major.kind === 'user' ? (
              <Text inverse={waiting} color={waiting ? 'yellow' : undefined}>{waiting ? ' You ◂ ' : 'You'}</Text>
            ) : (
              major.children.map((id) => {
                const agent = def.agentIndex.get(id);
                if (!agent) return null;
                const active = session.active === id && session.status === 'running';
                const last = session.active === id && !active;
                const m = personaMarks(session, marks, id, agent.path);
                return (
                  <Box key={id} marginRight={2}>
                    <Text>
                      <Text inverse={active} bold={active || last} color={active ? 'green' : last ? 'cyan' : undefined}>{safe(active ? ` ${agent.name} ▸ ` : agent.name)}</Text>
                      {m ? <Text dimColor> {m}</Text> : null}
                    </Text>
                  </Box>
                );
              })
            )}
          </Box>
        </Box>
      ))}
    </Box>
  );
}
