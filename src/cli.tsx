#!/usr/bin/env node
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseCli, USAGE, UsageError, type CliArgs } from './cli/args.js';
import { runHeadless } from './cli/run-command.js';
import { openDefault, resumeInteractive } from './cli/interactive.js';
import { ConfigError, formatIssue } from './config/issues.js';
import { loadTeam } from './config/load-team.js';
import { configJsonSchemas } from './config/json-schema.js';
import { UserError } from './llm/errors.js';
import { modelFromEnv } from './llm/from-env.js';
import { openTeam } from './runtime/open-team.js';
import { PACKAGE_ROOT, teamDir } from './runtime/team-paths.js';
import { toMermaid } from './graph.js';
import { LowdbStore } from './store/lowdb-store.js';
import { dataDirFrom } from './store/store.js';
import { listSessions } from './cli/sessions-command.js';
import { resumeHeadless, resumeModel } from './cli/resume-command.js';
import { showSession } from './cli/show-command.js';
import { exportSession } from './cli/export-command.js';
import type { ChatModel } from './llm/chat-model.js';
import { RecordingModel } from './llm/recording.js';
import { ReplayModel } from './llm/replay-model.js';
import { loadPriceTable } from './usage/price-table.js';
import { UsageMeter } from './usage/usage-meter.js';
import { formatUsageSummary } from './usage/summary.js';

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
    case '': {
      const dir = teamDir(args.team);
      const team = openTeam(dir, args.maxTurns !== undefined ? { maxTurns: args.maxTurns } : {});
      const model = modelFromEnv(process.env, { demo: args.demo });
      const tty = Boolean(process.stdin.isTTY && process.stdout.isTTY);
      const id = await openDefault({ team, teamDir: dir, model, mode: args.mode ?? 'fsm', json: args.json, store: new LowdbStore(dataDirFrom()), write: out, defaultBrief: DEMO_BRIEF, tty, ...(args.maxTurns !== undefined ? { maxTurns: args.maxTurns } : {}) });
      savedLine(id, args.json);
      return 0;
    }
    case 'run': {
      const brief = args.positionals.join(' ').trim();
      if (brief === '') throw new UsageError('run needs a brief: troupe run "<brief>"');
      const dir = teamDir(args.team);
      const team = openTeam(dir, args.maxTurns !== undefined ? { maxTurns: args.maxTurns } : {});
      const replay = args.replay !== undefined ? ReplayModel.fromFile(args.replay) : null;
      let model: ChatModel = replay ?? modelFromEnv(process.env, { demo: args.demo });
      if (args.record !== undefined) model = new RecordingModel(model, args.record);
      const meter = new UsageMeter(loadPriceTable(process.env));
      const sessionId = randomUUID();
      const store = { store: new LowdbStore(dataDirFrom()), teamDir: dir, ...(args.maxTurns !== undefined ? { maxTurns: args.maxTurns } : {}) };
      await runHeadless({ team, model, brief, mode: args.mode ?? 'fsm', json: args.json, write: out, sessionId, store, meter });
      savedLine(sessionId, args.json);
      // With --json stdout holds only events, so the summary goes to stderr.
      const summary = args.json ? (line: string) => process.stderr.write(`${line}\n`) : out;
      if (!args.json) summary('');
      for (const line of formatUsageSummary(meter)) summary(line);
      if (replay?.divergence) {
        process.stderr.write(`troupe: ${replay.divergence}\n`);
        return 1;
      }
      if (replay && replay.remaining > 0) process.stderr.write(`troupe: replay ended with ${replay.remaining} recorded call(s) unused\n`);
      return 0;
    }
    case 'sessions':
      await listSessions(new LowdbStore(dataDirFrom()), out, dataDirFrom());
      return 0;
    case 'resume': {
      if (process.stdin.isTTY && process.stdout.isTTY && !args.json) {
        savedLine(await resumeInteractive({ store: new LowdbStore(dataDirFrom()), ...(args.positionals[0] ? { id: args.positionals[0] } : {}), model: resumeModel(process.env, { demo: args.demo }) }), false);
        return 0;
      }
      const { id } = await resumeHeadless({ store: new LowdbStore(dataDirFrom()), id: args.positionals[0], json: args.json, write: out, model: resumeModel(process.env, { demo: args.demo }) });
      savedLine(id, args.json);
      return 0;
    }
    case 'show':
      await showSession(new LowdbStore(dataDirFrom()), args.positionals[0], out);
      return 0;
    case 'export':
      await exportSession(new LowdbStore(dataDirFrom()), args.positionals[0], args.format, (text) => process.stdout.write(text));
      return 0;
    default:
      throw new UsageError(`unknown command "${args.command}"`);
  }
}

/** Tells the user how to continue a stored session (on stderr under --json, so stdout stays JSON lines). */
function savedLine(id: string, json: boolean): void {
  const line = `session ${id} saved — continue it with: troupe resume ${id.slice(0, 8)}`;
  if (json) process.stderr.write(`${line}\n`);
  else out(line);
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
  // Everything is saved by now; a socket a provider left open must not keep the process alive.
  setTimeout(() => process.exit(code), 2_000).unref();
}

void entry();
