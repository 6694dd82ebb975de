import { createHash } from 'node:crypto';
import type { LoadedTeam } from '../config/load-team.js';
import type { MachineDefinition } from '../engine/definition.js';
import type { JournalRecord } from './session-file.js';

/** A journal's machine line (see session-file.ts): the machine the steps after it run. */
export type MachineLine = NonNullable<JournalRecord['machine']>;

/** What compileTeam reads of a loaded team, as a machine line records it (prompts and the directory are not the machine). */
export type TeamConfig = Pick<LoadedTeam, 'team' | 'personas'>;

/** The last machine line of a journal: the hash of its team config, its max-turns limit, and the number of the line that holds that config (null: a workflow's). */
export interface RecordedMachine {
  source: string;
  maxTurns: number | undefined;
  teamLine: number | null;
}

/** The hash a machine line names its team config by (a workflow session's plan is in its document: it has none). */
export function sourceOf(config: TeamConfig | null): string {
  return createHash('sha256')
    .update(config ? JSON.stringify([config.team, config.personas]) : 'workflow')
    .digest('hex')
    .slice(0, 16);
}

/**
 * The machine line a session opened with `def` (compiled from `team`, or from its workflow's plan when `team` is
 * null) appends after `last`, the last one its journal records: null when that one records the same machine. The
 * team config is written out only when it is not the one an earlier line holds (then its number is given).
 */
export function machineLineFor(def: MachineDefinition, team: LoadedTeam | null, last: RecordedMachine | null): MachineLine | null {
  const config = team ? { team: team.team, personas: team.personas } : null;
  const source = sourceOf(config);
  const maxTurns = def.limits.max_turns;
  if (last && last.source === source && last.maxTurns === maxTurns) return null;
  const line: MachineLine = { source, maxTurns };
  if (config) line.team = last && last.source === source && last.teamLine !== null ? last.teamLine : config;
  return line;
}

/** The last machine line after `record` (the journal's line `line`), given `last` before it. */
export function recordedAfter(last: RecordedMachine | null, record: JournalRecord, line: number): RecordedMachine | null {
  const m = record.machine;
  if (!m) return last;
  const teamLine = typeof m.team === 'number' ? m.team : m.team ? line : null;
  return { source: m.source, maxTurns: m.maxTurns, teamLine };
}

/** The last machine line a journal's records record (null: none, as in journals written before them). */
export function lastRecorded(records: readonly JournalRecord[]): RecordedMachine | null {
  let last: RecordedMachine | null = null;
  for (let i = 0; i < records.length; i++) last = recordedAfter(last, records[i]!, i + 1);
  return last;
}
