import type React from 'react';
import { Box, Text } from 'ink';
import wrapAnsi from 'wrap-ansi';
import type { MachineDefinition } from '../engine/definition.js';
import { formatPath } from '../report/names.js';
import { terminalSafe as safe } from '../report/terminal-safe.js';
import type { LiveTurn as Live } from './view-model.js';
import { Volatile } from './Volatile.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** The last `maxLines` lines of `text` wrapped at word boundaries to `width` (a word longer than a line is cut). */
export function tailLines(text: string, width: number, maxLines: number): string[] {
  const w = Math.max(10, width);
  // Made safe first: wrap-ansi keeps escape sequences, and a streamed one must not reach the terminal.
  const lines = wrapAnsi(safe(text), w, { hard: true }).split('\n');
  return lines.slice(-maxLines);
}

/** Where the turn is and who answers (a debate state names no agent of its own: the reviewer is added). */
function label(def: MachineDefinition, live: Live): string {
  const where = formatPath(def, live.path);
  const who = def.agentIndex.get(live.persona)?.name;
  return who && !where.includes(who) ? `${where} · ${who}` : where;
}

/** Props of the live turn. */
export interface LiveTurnProps {
  live: Live | null;
  /** Branches of a fan-out streaming at once, by branch id: one line each. */
  branches?: Record<string, Live>;
  def: MachineDefinition;
  width: number;
  maxLines: number;
  /** Now, in the same clock as `live.startedAt` (epoch ms); drives the spinner and the elapsed time. */
  now: number;
  /** Shown instead of the model id a call names (the offline demo answers every tier itself: "demo model", not gpt-4o). */
  modelLabel?: string | undefined;
}

/** The turn being answered now: a spinner and the time waited until the first words, then the words as they stream. */
export function LiveTurn({ live, branches = {}, def, width, maxLines, now, modelLabel }: LiveTurnProps): React.JSX.Element | null {
  const parallel = Object.entries(branches);
  if (parallel.length > 0) return <BranchLines branches={parallel} def={def} now={now} modelLabel={modelLabel} />;
  if (!live) return null;
  const lines = tailLines(live.text, width - 2, maxLines);
  const waited = Math.max(0, Math.floor((now - live.startedAt) / 1000));
  const spin = SPINNER[Math.floor(Math.max(0, now - live.startedAt) / 100) % SPINNER.length];
  return (
    <Box flexDirection="column">
      <Box>
        <Text wrap="truncate-end">
          <Text bold color="green">▸ {safe(label(def, live))}</Text>
          <Text dimColor> is answering…{live.attempt > 1 ? ` (repair round ${live.attempt})` : ''} · {safe(modelLabel ?? live.model)}</Text>
          {live.tool ? <Text color="yellow"> · ⚙ {safe(live.tool)}</Text> : null}
        </Text>
        {live.text === '' ? <Volatile color="yellow" text={` ${spin} waiting for the first words · ${waited}s`} /> : <Volatile dimColor text={` · ${waited}s`} />}
      </Box>
      {lines.map((line, i) => (
        <Volatile key={i} text={`  ${line}`} width={width} />
      ))}
    </Box>
  );
}

function tokens(n: number | undefined): string {
  if (!n) return '';
  return n >= 1000 ? ` · ${(n / 1000).toFixed(1)}k tok` : ` · ${n} tok`;
}

/** One line per branch of a fan-out: branch, agent, model, the tool it runs, tokens, time, and its newest words. */
function BranchLines({ branches, def, now, modelLabel }: { branches: [string, Live][]; def: MachineDefinition; now: number; modelLabel?: string | undefined }): React.JSX.Element {
  return (
    <Box flexDirection="column">
      {branches.map(([id, b]) => {
        const waited = Math.max(0, Math.floor((now - b.startedAt) / 1000));
        const spin = SPINNER[Math.floor(Math.max(0, now - b.startedAt) / 100) % SPINNER.length];
        const words = b.text.replace(/\s+/g, ' ').trim();
        return (
          <Text key={id} wrap="truncate-end">
            <Text color="green">{spin} {safe(id)}</Text>
            <Text bold> {safe(def.agentIndex.get(b.persona)?.name ?? b.persona)}</Text>
            <Text dimColor> · {safe(modelLabel ?? b.model)}{tokens(b.tokens)} · {waited}s</Text>
            {b.tool ? <Text color="yellow"> · ⚙ {safe(b.tool)}</Text> : null}
            {words ? <Text> · {safe(words).slice(-80)}</Text> : null}
          </Text>
        );
      })}
    </Box>
  );
}
