import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { PersonaSchema, type Persona } from './persona-schema.js';
import { TeamSchema, type Team } from './team-schema.js';
import { ConfigError, zodIssues, type ConfigIssue } from './issues.js';
import { crossCheck, type CheckedPersona } from './cross-check.js';
import { salvage, type FieldSchema, type Salvaged } from './salvage.js';
import { assertDirInside, isInside, readConfigText, UnreadableFile } from './safe-read.js';
import { parseConfigJson } from './config-json.js';

/** A validated team: team.json, personas in roster order and their prompt texts. */
export interface LoadedTeam {
  dir: string;
  team: Team;
  personas: Persona[];
  prompts: Record<string, string>;
}

/** Result of loading: the team when clean, and every issue found. */
export interface LoadResult {
  team: LoadedTeam | null;
  issues: ConfigIssue[];
}

/**
 * Reads a file that must stay inside `root` (see readConfigText: no "..", no symlink out, regular files
 * only, without blocking on a FIFO, size-capped, UTF-8); an unreadable one becomes an issue and null.
 */
function readInside(root: string, file: string, shown: string, field: string, issues: ConfigIssue[]): string | null {
  try {
    return readConfigText(root, file);
  } catch (error) {
    if (!(error instanceof UnreadableFile)) throw error;
    issues.push({ file: shown, field, problem: error.problem, fix: error.fix });
    return null;
  }
}

/** A JSON file checked against its schema: every schema issue reported, and what can still be cross-checked kept (null: not even JSON). */
function readJson<T>(root: string, file: string, schema: FieldSchema<T>, issues: ConfigIssue[]): Salvaged<T> | null {
  const text = readInside(root, file, file, '', issues);
  if (text === null) return null;
  const raw = parseConfigJson(text, file, issues);
  if (!raw) return null;
  const { salvaged, error } = salvage(schema, raw.value);
  if (error) issues.push(...zodIssues(file, error));
  return salvaged;
}

/**
 * Loads and validates a team directory, collecting every problem instead of stopping at the first. Every
 * file read (team.json, persona files, prompts) must stay inside the team directory; paths in the issues
 * are the directory as given joined with the file, never rewritten relative to the working directory.
 */
export function loadTeam(dir: string): LoadResult {
  const issues: ConfigIssue[] = [];
  const personasDir = join(dir, 'personas');
  const promptsDir = join(dir, 'prompts');
  const teamFile = join(personasDir, 'team.json');
  const fix = 'point --team at a directory holding personas/team.json and prompts/';

  const kind = statSync(dir, { throwIfNoEntry: false });
  if (!kind?.isDirectory()) {
    issues.push({ file: dir, field: '', problem: kind ? 'is not a directory' : 'does not exist', fix });
    return { team: null, issues };
  }
  if (!statSync(personasDir, { throwIfNoEntry: false })?.isDirectory()) {
    issues.push({ file: dir, field: 'personas/', problem: 'no personas directory', fix });
    return { team: null, issues };
  }
  // Persona files and prompts are read inside these directories: the directories themselves must be the team's.
  for (const [sub, name] of [
    [personasDir, 'personas/'],
    [promptsDir, 'prompts/'],
  ] as const) {
    try {
      if (existsSync(sub)) assertDirInside(dir, sub, name);
    } catch (error) {
      if (!(error instanceof UnreadableFile)) throw error;
      issues.push({ file: dir, field: name, problem: error.problem, fix: error.fix });
      return { team: null, issues };
    }
  }
  if (!statSync(teamFile, { throwIfNoEntry: false })) {
    issues.push({ file: teamFile, field: '', problem: 'file is missing', fix: 'create personas/team.json (see the shipped team)' });
    return { team: null, issues };
  }
  const teamRead = readJson<Team>(dir, teamFile, TeamSchema, issues);

  // Personas whose file is valid, and those whose file is not but still says enough to cross-check.
  const personas: Persona[] = [];
  const partial: CheckedPersona[] = [];
  const files = readdirSync(personasDir)
    .filter((f) => f.endsWith('.json') && f !== 'team.json')
    .sort();
  const seen = new Map<string, string>();
  const broken = new Set<string>();
  for (const f of files) {
    const file = join(personasDir, f);
    const read = readJson<Persona>(dir, file, PersonaSchema, issues);
    const named = basename(f, '.json');
    if (!read) {
      broken.add(named);
      continue;
    }
    const persona = read.value;
    // A persona whose id is missing or invalid goes by its file name, which must equal the id anyway.
    const id = persona.id ?? named;
    const prior = seen.get(id);
    if (prior) {
      issues.push({ file, field: 'id', problem: `duplicate persona id "${id}" (also in ${prior})`, fix: 'give each persona a unique id' });
      continue;
    }
    if (persona.id !== undefined && named !== persona.id) {
      issues.push({ file, field: 'id', problem: `id "${persona.id}" does not match the file name`, fix: `rename the file to ${persona.id}.json or change the id` });
    }
    seen.set(id, file);
    if (read.complete) personas.push(persona as Persona);
    else partial.push({ ...persona, id });
  }

  const prompts: Record<string, string> = {};
  for (const persona of [...personas, ...partial]) {
    if (persona.prompt === undefined) continue;
    const file = join(promptsDir, persona.prompt);
    const shown = join(personasDir, `${persona.id}.json`);
    if (isInside(resolve(promptsDir), resolve(file)) && !existsSync(file)) {
      issues.push({ file: shown, field: 'prompt', problem: `prompt file ${file} is missing`, fix: `create ${file} or point "prompt" at an existing file in prompts/` });
      continue;
    }
    // Prompts go to the model server and into recordings: only files inside prompts/ are read.
    const text = readInside(promptsDir, persona.prompt, shown, 'prompt', issues);
    if (text !== null) prompts[persona.id] = text;
  }

  const complete = teamRead?.complete === true && partial.length === 0 && broken.size === 0;
  // A team.json that is not even JSON still leaves the personas' own references to check.
  issues.push(...crossCheck(teamRead?.value ?? {}, [...personas, ...partial], teamFile, (id) => join(personasDir, `${id}.json`), broken, complete));
  if (!teamRead?.complete || issues.length > 0) return { team: null, issues };
  const team = teamRead.value as Team;

  const order = team.majors.flatMap((m) => m.personas);
  personas.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  return { team: { dir, team, personas, prompts }, issues };
}

/** Loads a team or throws a ConfigError with every issue. */
export function loadTeamOrThrow(dir: string): LoadedTeam {
  const result = loadTeam(dir);
  if (!result.team) throw new ConfigError(result.issues);
  return result.team;
}
