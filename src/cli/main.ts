import { parseCli, UsageError, type CliArgs } from './args.js';
import { commandSpec, COMMAND_SPECS } from './command-specs.js';
import { commandHelp, globalHelp } from './help.js';
import { troupeCommand, type CliIo } from './io.js';
import { namingCommand } from './invocation.js';
import { didYouMean } from '../config/suggest.js';
import { UserError } from '../errors.js';
import { ConfigError, formatIssue } from '../config/issues.js';
import { oneLineSafe, terminalSafe } from '../report/terminal-safe.js';

/** One CLI command: runs with the parsed arguments and the IO, returns the exit code. */
export type CommandRun = (args: CliArgs, io: CliIo) => Promise<number>;

// Each command's module is imported when it runs, so `troupe --help` loads only the argument parser.
const COMMANDS: Record<string, () => Promise<{ run: CommandRun }>> = {
  '': () => import('./commands/default-command.js'),
  run: () => import('./commands/run-command.js'),
  resume: () => import('./commands/resume-command.js'),
  sessions: () => import('./commands/sessions-command.js'),
  show: () => import('./commands/show-command.js'),
  export: () => import('./commands/export-command.js'),
  fork: () => import('./commands/fork-command.js'),
  validate: () => import('./commands/validate-command.js'),
  graph: () => import('./commands/graph-command.js'),
  schemas: () => import('./commands/schemas-command.js'),
  serve: () => import('./commands/serve-command.js'),
  workflows: () => import('./commands/workflows-command.js'),
  worker: () => import('./commands/worker-command.js'),
};

/** Runs the CLI: parses argv, runs the command, turns user errors into one line; returns the exit code. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  try {
    const args = parseCli(argv);
    // `troupe help [command]` and `troupe <command> --help` print the same page.
    const helpFor = args.help ? args.command : args.command === 'help' ? (args.positionals[0] ?? '') : undefined;
    if (helpFor !== undefined) {
      io.stdout.write(`${help(helpFor)}\n`);
      return 0;
    }
    const load = COMMANDS[args.command];
    if (!load) throw unknownCommand(args.command);
    try {
      return await (await load()).run(args, io);
    } catch (error) {
      // A command's own usage errors (a bad variable, a bad flag value) show that command's usage.
      if (error instanceof UsageError) error.command ??= args.command;
      throw error;
    }
  } catch (error) {
    return reportError(error, io);
  }
}

/** Prints an error the way the CLI does and returns its exit code: 2 usage, 1 user or config error, 70 internal. */
export function reportError(error: unknown, io: CliIo): number {
  // Hints worded below the CLI (the store's "run troupe sessions") name the command as the user started troupe.
  const named = (text: string) => namingCommand(text, troupeCommand(io));
  // Messages quote input (a file name, a persona, a line the user typed): never let them drive the terminal.
  const say = (line: string) => void io.stderr.write(`${terminalSafe(named(line))}\n`);
  if (error instanceof UsageError) {
    say(`troupe: ${error.message}`);
    const spec = error.command !== undefined ? commandSpec(error.command) : undefined;
    if (spec && spec.name !== '') say(`usage: ${spec.synopsis.join('\n   or: ')}\n(troupe ${spec.name} --help shows its options and examples)`);
    else say('usage: troupe [command] [options] (troupe --help lists the commands)');
    return 2;
  }
  // A user error is one line, whatever the names it quotes hold (a forged id or file name with a newline).
  const line = (text: string) => void io.stderr.write(`${oneLineSafe(named(text))}\n`);
  if (error instanceof ConfigError) {
    for (const issue of error.issues) line(formatIssue(issue));
    return 1;
  }
  if (error instanceof UserError) {
    line(`troupe: ${error.message}`);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  line(`troupe: internal error: ${message}`);
  if (io.env.TROUPE_DEBUG && error instanceof Error) io.stderr.write(`${error.stack}\n`);
  return 70;
}

function unknownCommand(name: string): UsageError {
  const near = didYouMean(
    name,
    COMMAND_SPECS.map((c) => c.name).filter((c) => c !== ''),
  );
  return new UsageError(`unknown command "${name}"${near ? ` — did you mean troupe ${near}?` : ''}`);
}

/** The help page of a command, or troupe's own ('' or no command). */
function help(command: string): string {
  if (command === '') return globalHelp();
  const spec = commandSpec(command);
  if (!spec) throw unknownCommand(command);
  return commandHelp(spec);
}
