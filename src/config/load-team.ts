import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { join, relative, basename } from 'node:path';
import type { z } from 'zod';
import { PersonaSchema, type Persona } from './persona-schema.js';
import { TeamSchema, type Team } from './team-schema.js';
import { ConfigError, zodIssues, type ConfigIssue } from './issues.js';
import { crossCheck } from './cross-check.js';

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

function readJson<T>(
  file: string,
  shown: string,
  schema: z.ZodType<T>,
  issues: ConfigIssue[],
): T | null {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const problem = error instanceof SyntaxError ? `not valid JSON (${error.message})` : 'cannot be read';
    issues.push({ file: shown, field: '', problem, fix: 'fix the JSON syntax (a JSON linter shows where)' });
    return null;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    issues.push(...zodIssues(shown, parsed.error));
    return null;
  }
  return parsed.data;
}

/** Loads and validates a team directory, collecting every problem instead of stopping at the first. */
export function loadTeam(dir: string): LoadResult {
  const issues: ConfigIssue[] = [];
  const show = (file: string) => relative(process.cwd(), file) || file;
  const personasDir = join(dir, 'personas');
  const promptsDir = join(dir, 'prompts');
  const teamFile = join(personasDir, 'team.json');

  if (!existsSync(personasDir) || !statSync(personasDir).isDirectory()) {
    issues.push({
      file: show(dir),
      field: 'personas/',
      problem: 'no personas directory',
      fix: 'point --team at a directory holding personas/team.json and prompts/',
    });
    return { team: null, issues };
  }
  if (!existsSync(teamFile)) {
    issues.push({ file: show(teamFile), field: '', problem: 'file is missing', fix: 'create personas/team.json (see the shipped team)' });
    return { team: null, issues };
  }
  const team = readJson(teamFile, show(teamFile), TeamSchema, issues);

  const personas: Persona[] = [];
  const files = readdirSync(personasDir)
    .filter((f) => f.endsWith('.json') && f !== 'team.json')
    .sort();
  const seen = new Map<string, string>();
  const broken = new Set<string>();
  for (const f of files) {
    const file = join(personasDir, f);
    const persona = readJson(file, show(file), PersonaSchema, issues);
    if (!persona) {
      broken.add(basename(f, '.json'));
      continue;
    }
    const prior = seen.get(persona.id);
    if (prior) {
      issues.push({ file: show(file), field: 'id', problem: `duplicate persona id "${persona.id}" (also in ${prior})`, fix: 'give each persona a unique id' });
      continue;
    }
    if (basename(f, '.json') !== persona.id) {
      issues.push({ file: show(file), field: 'id', problem: `id "${persona.id}" does not match the file name`, fix: `rename the file to ${persona.id}.json or change the id` });
    }
    seen.set(persona.id, show(file));
    personas.push(persona);
  }

  const prompts: Record<string, string> = {};
  for (const persona of personas) {
    const file = join(promptsDir, persona.prompt);
    if (!existsSync(file)) {
      issues.push({
        file: show(join(personasDir, `${persona.id}.json`)),
        field: 'prompt',
        problem: `prompt file ${show(file)} is missing`,
        fix: `create ${show(file)} or point "prompt" at an existing file in prompts/`,
      });
      continue;
    }
    prompts[persona.id] = readFileSync(file, 'utf8');
  }

  if (team) issues.push(...crossCheck(team, personas, show(teamFile), (id) => show(join(personasDir, `${id}.json`)), broken));
  if (!team || issues.length > 0) return { team: null, issues };

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
