#!/usr/bin/env node
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseCli, USAGE, UsageError, type CliArgs } from './cli/args.js';
import { runHeadless } from './cli/run-command.js';
import { runPiped } from './cli/run-piped.js';
import { ConfigError, formatIssue } from './config/issues.js';
import { loadTeam } from './config/load-team.js';
import { configJsonSchemas } from './config/json-schema.js';
import { UserError } from './llm/errors.js';
import { modelFromEnv } from './llm/from-env.js';
import { openTeam } from './runtime/open-team.js';
import { PACKAGE_ROOT, teamDir } from './runtime/team-paths.js';
import { toMermaid } from './graph.js';

/** The brief `npm start` runs when no brief is given. */
export const DEMO_BRIEF = 'A cozy game about a lighthouse keeper tending a failing light on a stormy island';

const out = (line: string) => process.stdout.write(`${line}\n`);

async function main(args: CliArgs): Promise<number> {
  if (args.help) {
    out(USAGE);
    return 0;
  }
  switch (args.command) {
    case 'validate': {
      const dir = teamDir(args.team);
      const result = loadTeam(dir);
      if (!result.team) {
        for (const issue of result.issues) process.stderr.write(`${formatIssue(issue)}\n`);
        process.stderr.write(`${result.issues.length} problem(s) in ${dir}\n`);
        return 1;
      }
      const t = result.team;
      const majors = t.team.majors.filter((m) => m.kind === 'team').length;
      out(`ok: ${t.team.name} — ${t.personas.length} personas in ${majors} majors, initial ${t.team.initial}`);
      return 0;
    }
    case 'graph':
      out(toMermaid(openTeam(teamDir(args.team)).def));
      return 0;
    case 'schemas': {
      const dir = join(PACKAGE_ROOT, 'schemas');
      const stale: string[] = [];
      for (const [file, text] of Object.entries(configJsonSchemas())) {
        const path = join(dir, file);
        let current = '';
        try {
          current = readFileSync(path, 'utf8');
        } catch {
          // missing counts as stale
        }
        if (current === text) continue;
        stale.push(file);
        if (!args.check) {
          mkdirSync(dir, { recursive: true });
          writeFileSync(path, text);
        }
      }
      if (args.check && stale.length > 0) {
        process.stderr.write(`schemas out of date: ${stale.join(', ')} — run npm run schemas\n`);
        return 1;
      }
      out(args.check ? 'schemas up to date' : stale.length ? `wrote ${stale.join(', ')}` : 'schemas up to date');
      return 0;
    }
    case '':
      return openDefault(args);
    case 'run': {
      const brief = args.positionals.join(' ').trim();
      if (brief === '') throw new UsageError('run needs a brief: troupe run "<brief>"');
      const team = openTeam(teamDir(args.team), args.maxTurns !== undefined ? { maxTurns: args.maxTurns } : {});
      const model = modelFromEnv(process.env, { demo: args.demo });
      await runHeadless({ team, model, brief, mode: args.mode ?? 'fsm', json: args.json, write: out, sessionId: randomUUID() });
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${args.command}"`);
  }
}

/** `troupe` with no command: the UI when stdin is a TTY, else a session driven by piped lines. */
async function openDefault(args: CliArgs): Promise<number> {
  const team = openTeam(teamDir(args.team), args.maxTurns !== undefined ? { maxTurns: args.maxTurns } : {});
  const model = modelFromEnv(process.env, { demo: args.demo });
  const mode = args.mode ?? 'fsm';
  if (process.stdin.isTTY && !args.json) {
    const [{ runUi }, { Runner }, { PacedModel }] = await Promise.all([import('./ui/run-ui.js'), import('./runtime/runner.js'), import('./llm/paced-model.js')]);
    // The demo model answers instantly; pace it so a new user can watch the team and interject.
    const pace = Number(process.env.TROUPE_DEMO_PACE_MS ?? 40);
    const shown = model.offline && pace > 0 ? new PacedModel(model, pace) : model;
    const runner = new Runner({ def: team.def, prompts: team.loaded.prompts, model: shown, modelFor: team.modelFor, mode, sessionId: randomUUID() });
    await runUi({ runner, model: { label: model.label, offline: model.offline ?? false } });
    return 0;
  }
  const { createInterface } = await import('node:readline');
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  await runPiped({ team, model, mode, json: args.json, write: out, sessionId: randomUUID(), lines, defaultBrief: DEMO_BRIEF });
  return 0;
}

async function entry(): Promise<void> {
  let code: number;
  try {
    code = await main(parseCli(process.argv.slice(2)));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`troupe: ${error.message}\n${USAGE.split('\n')[0]}\n`);
      code = 2;
    } else if (error instanceof ConfigError) {
      for (const issue of error.issues) process.stderr.write(`${formatIssue(issue)}\n`);
      code = 1;
    } else if (error instanceof UserError) {
      process.stderr.write(`troupe: ${error.message}\n`);
      code = 1;
    } else {
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(`troupe: internal error: ${message}\n`);
      if (process.env.TROUPE_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
      code = 70;
    }
  }
  process.exitCode = code;
}

void entry();
