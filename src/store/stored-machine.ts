import { z } from 'zod';
import type { LoadedTeam } from '../config/load-team.js';
import { PersonaSchema } from '../config/persona-schema.js';
import { TeamSchema } from '../config/team-schema.js';
import type { MachineDefinition } from '../engine/definition.js';
import { compileTeam } from '../team/compile-team.js';
import { openTeam } from '../team/open-team.js';
import { compileWorkflow } from '../workflow/run/compile.js';
import { type MachineLine, sourceOf, type TeamConfig } from './machine-lines.js';
import type { SessionDocument } from './session-file.js';

// Team directories opened once per process (a listing folds many sessions of the same team); null: it cannot be opened.
const teams = new Map<string, MachineDefinition | null>();

/** The machine a stored session runs, as reopening it would build it (its workflow's plan, else its team directory), or null when its team cannot be opened. */
export function storedMachine(doc: SessionDocument): MachineDefinition | null {
  const maxTurns = doc.team.maxTurns;
  if (doc.workflow?.plan) return compileWorkflow(doc.workflow.plan, maxTurns !== undefined ? { max_turns: maxTurns } : {});
  const key = `${doc.team.dir}\u0000${maxTurns ?? ''}`;
  if (!teams.has(key)) {
    try {
      teams.set(key, openTeam(doc.team.dir, maxTurns !== undefined ? { maxTurns } : {}).def);
    } catch {
      teams.set(key, null);
    }
  }
  return teams.get(key) ?? null;
}

const TeamConfigSchema = z.object({ team: TeamSchema, personas: z.array(PersonaSchema) });

// Recorded team configs compiled once per process, by the hash of what the line holds (not the hash it names).
const recorded = new Map<string, MachineDefinition>();
// And by the config object itself, with its limit: a record read again (see machine-scan.ts) is not hashed again.
const byConfig = new WeakMap<object, Map<number | undefined, MachineDefinition>>();

/**
 * The machine a journal's machine line records, as the session ran it: its workflow's plan, or the team config it
 * (or the earlier line it names) holds, with its max-turns limit. A config that no longer parses or compiles throws.
 */
export function recordedMachine(doc: SessionDocument, line: MachineLine, config: unknown): MachineDefinition {
  const limits = line.maxTurns !== undefined ? { max_turns: line.maxTurns } : {};
  if (doc.workflow?.plan) return compileWorkflow(doc.workflow.plan, limits);
  const known = typeof config === 'object' && config !== null ? byConfig.get(config)?.get(line.maxTurns) : undefined;
  if (known) return known;
  const key = `${sourceOf(config as TeamConfig)}\u0000${line.maxTurns ?? ''}`;
  let def = recorded.get(key);
  if (!def) {
    const parsed = TeamConfigSchema.parse(config);
    def = compileTeam({ dir: doc.team.dir, team: parsed.team as LoadedTeam['team'], personas: parsed.personas as LoadedTeam['personas'], prompts: {} });
    def.limits = { ...def.limits, ...limits };
    recorded.set(key, def);
  }
  if (typeof config === 'object' && config !== null) {
    const limitsOf = byConfig.get(config) ?? new Map<number | undefined, MachineDefinition>();
    limitsOf.set(line.maxTurns, def);
    byConfig.set(config, limitsOf);
  }
  return def;
}

/**
 * A journal's machine lines as a reader meets them, in order (every reader of a stored session walks them so: its
 * replay, show, export, fork, the listing and serve's views): the machine the lines after the last one read run,
 * as that line records it — the one source of which machine (and so which persona names) a session's line N had.
 */
export class MachineLines {
  // The team configs machine lines hold, by line number (a later line names the one it runs again).
  private readonly configs = new Map<number, unknown>();
  /** The number of the last machine line read (null: none so far: the lines run the machine the session's directory gives). */
  line: number | null = null;
  /** The machine it records (null: it cannot be built: a hand-edited line, a config that no longer compiles). */
  def: MachineDefinition | null = null;

  constructor(private readonly doc: SessionDocument) {}

  /** Reads machine line `line` (its number in the journal): the machine it records, or null when it cannot be built. */
  read(machine: MachineLine, line: number): MachineDefinition | null {
    if (machine.team !== undefined && typeof machine.team !== 'number') this.configs.set(line, machine.team);
    this.line = line;
    const { maxTurns, team } = machine;
    const config = typeof team === 'number' ? this.configs.get(team) : team;
    // A hand-edited line is no machine: a limit that is no limit, or a config named that no earlier machine line holds.
    const wellFormed = (maxTurns === undefined || (Number.isInteger(maxTurns) && maxTurns > 0)) && (this.doc.workflow?.plan !== undefined || config !== undefined);
    try {
      this.def = wellFormed ? recordedMachine(this.doc, machine, config) : null;
    } catch {
      this.def = null;
    }
    return this.def;
  }
}
