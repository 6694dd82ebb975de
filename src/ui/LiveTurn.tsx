import type React from 'react';
import { Box, Text } from 'ink';
import type { MachineDefinition } from '../engine/definition.js';
import { formatPath } from '../report/names.js';
import { terminalSafe as safe } from '../report/terminal-safe.js';
import { columnsOf, wrapColumns } from './columns.js';
import { rowText, type PieceRow } from './pieces.js';
import { Row } from './Rows.js';
import type { LiveTurn as Live } from './view-model.js';
import { Volatile } from './Volatile.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

// A line longer than this many rows' worth of characters is wrapped from near its end only (an answer can be
// one paragraph of tens of thousands of characters, rewrapped on every frame); the cut moves in steps, so
// the rows shown do not reflow with every word.
const TAIL_ROWS = 4;
const TAIL_STEP = 1024;

function tailOf(line: string, width: number, maxLines: number): string {
  const limit = (maxLines + 1) * width * TAIL_ROWS;
  if (line.length <= limit) return line;
  const from = Math.floor((line.length - limit) / TAIL_STEP) * TAIL_STEP;
  const space = line.indexOf(' ', from);
  return space < 0 ? line.slice(from) : line.slice(space + 1);
}

/** The last `maxLines` rows of `text` wrapped at word boundaries to `width` columns (a word longer than a row is cut). */
export function tailLines(text: string, width: number, maxLines: number): string[] {
  if (maxLines <= 0) return [];
  const w = Math.max(1, width);
  // Made safe first: a streamed escape sequence must not reach the terminal.
  const lines = safe(text).split('\n');
  const rows: string[] = [];
  for (let i = lines.length - 1; i >= 0 && rows.length < maxLines; i--) rows.unshift(...wrapColumns(tailOf(lines[i]!, w, maxLines), w));
  return rows.slice(-maxLines);
}

/** Where the turn is and who answers (a debate state names no agent of its own: the reviewer is added). */
function label(def: MachineDefinition, live: Live): string {
  const where = formatPath(def, live.path);
  const who = def.agentIndex.get(live.persona)?.name;
  return who && !where.includes(who) ? `${where} · ${who}` : where;
}

/** The live turn's heading: where, who, the model, the tool it runs. */
function heading(def: MachineDefinition, live: Live, modelLabel: string | undefined): PieceRow {
  const row: PieceRow = [
    { text: `▸ ${safe(label(def, live))}`, style: { bold: true, color: 'green' } },
    { text: ` is answering…${live.attempt > 1 ? ` (repair round ${live.attempt})` : ''} · ${safe(modelLabel ?? live.model)}`, style: { dimColor: true } },
  ];
  if (live.tool) row.push({ text: ` · ⚙ ${safe(live.tool)}`, style: { color: 'yellow' } });
  return row;
}

/** What follows the heading, changing every frame: the spinner and time waited (shorter when the row is narrow), or the time so far. */
function clock(live: Live, now: number, room: number): string {
  const waited = Math.max(0, Math.floor((now - live.startedAt) / 1000));
  if (live.text !== '') return ` · ${waited}s`;
  const spin = SPINNER[Math.floor(Math.max(0, now - live.startedAt) / 100) % SPINNER.length];
  const long = ` ${spin} waiting for the first words · ${waited}s`;
  return columnsOf(long) <= room ? long : ` ${spin} ${waited}s`;
}

/** Props of the live turn. */
export interface LiveTurnProps {
  live: Live | null;
  /** Branches of a fan-out streaming at once, by branch id: one line each. */
  branches?: Record<string, Live>;
  def: MachineDefinition;
  width: number;
  /** Rows of the turn's words (below its heading). */
  maxLines: number;
  /** Rows for the branches (the last says how many more there are, when they do not all fit). */
  maxBranches?: number;
  /** Now, in the same clock as `live.startedAt` (epoch ms); drives the spinner and the elapsed time. */
  now: number;
  /** Shown instead of the model id a call names (the offline demo answers every tier itself: "demo model", not gpt-4o). */
  modelLabel?: string | undefined;
}

/** The turn being answered now: a spinner and the time waited until the first words, then the words as they stream. */
export function LiveTurn({ live, branches = {}, def, width, maxLines, maxBranches = Number.POSITIVE_INFINITY, now, modelLabel }: LiveTurnProps): React.JSX.Element | null {
  const parallel = Object.entries(branches);
  if (parallel.length > 0) return <BranchLines branches={parallel} def={def} now={now} modelLabel={modelLabel} max={maxBranches} />;
  if (!live) return null;
  const head = heading(def, live, modelLabel);
  const time = clock(live, now, width - columnsOf(rowText(head)));
  return (
    <Box flexDirection="column">
      <Box>
        <Row row={head} />
        {/* The clock keeps its columns; the heading gives up its end when the row is narrow. */}
        <Box flexShrink={0}>{live.text === '' ? <Volatile color="yellow" text={time} /> : <Volatile dimColor text={time} />}</Box>
      </Box>
      {tailLines(live.text, width - 2, maxLines).map((line, i) => (
        <Volatile key={i} text={`  ${line}`} width={width} />
      ))}
    </Box>
  );
}

function tokens(n: number | undefined): string {
  if (!n) return '';
  return n >= 1000 ? ` · ${(n / 1000).toFixed(1)}k tok` : ` · ${n} tok`;
}

/** One line per branch of a fan-out (as many as fit): branch, agent, model, the tool it runs, tokens, time, and its newest words. */
function BranchLines({ branches, def, now, modelLabel, max }: { branches: [string, Live][]; def: MachineDefinition; now: number; modelLabel?: string | undefined; max: number }): React.JSX.Element {
  const fits = branches.length <= max;
  const shown = fits ? branches : branches.slice(0, Math.max(0, max - 1));
  return (
    <Box flexDirection="column">
      {shown.map(([id, b]) => {
        const waited = Math.max(0, Math.floor((now - b.startedAt) / 1000));
        const spin = SPINNER[Math.floor(Math.max(0, now - b.startedAt) / 100) % SPINNER.length];
        const words = b.text.replace(/\s+/g, ' ').trim();
        return (
          <Text key={id} wrap="truncate-end">
            <Text color="green">
              {spin} {safe(id)}
            </Text>
            <Text bold> {safe(def.agentIndex.get(b.persona)?.name ?? b.persona)}</Text>
            <Text dimColor>
              {' '}
              · {safe(modelLabel ?? b.model)}
              {tokens(b.tokens)} · {waited}s
            </Text>
            {b.tool ? <Text color="yellow"> · ⚙ {safe(b.tool)}</Text> : null}
            {words ? <Text> · {[...safe(words)].slice(-80).join('')}</Text> : null}
          </Text>
        );
      })}
      {fits || max <= 0 ? null : (
        <Text dimColor wrap="truncate-end">
          … and {branches.length - shown.length} more branches at work (!branches lists them)
        </Text>
      )}
    </Box>
  );
}
