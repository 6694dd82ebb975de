import { parse } from 'shell-quote';
import { ToolError } from './tool.js';

/** The longest command line run_command takes. */
const MAX_COMMAND_CHARS = 8_000;

type Variable = { variable: string };

/** Why an entry shell-quote found is refused: the words say what a shell would have done with it. */
function refusal(entry: object): string {
  if ('variable' in entry) {
    return (entry as Variable).variable === ''
      ? 'command substitution $(...) is not run: there is no shell'
      : `$${(entry as Variable).variable} is not expanded: there is no shell and the command sees a clean environment; write the value out`;
  }
  if ('comment' in entry) return 'a # comment is not allowed; remove it';
  const op = (entry as { op: string }).op;
  if (op === 'glob') return `the wildcard in "${(entry as { pattern: string }).pattern}" is not expanded: there is no shell; name the files (list_files shows them)`;
  return `the shell operator "${op}" is not supported: run_command runs one program without a shell (no pipes, ;, &&, ||, &, redirections or subshells)`;
}

/**
 * Splits a command line into argv the way a POSIX shell would quote it (shell-quote), and refuses
 * everything a shell would have interpreted: operators, redirections, variables, command
 * substitution, backticks, wildcards, comments, several lines. The program runs without a shell, so
 * these would not work anyway; refusing them says so instead of passing odd arguments on.
 */
export function parseCommandLine(line: string): string[] {
  if (line.trim() === '') throw new ToolError('the command is empty');
  if (line.length > MAX_COMMAND_CHARS) throw new ToolError(`the command is ${line.length} characters, over the ${MAX_COMMAND_CHARS} limit`);
  if (/[\r\n]/.test(line)) throw new ToolError('the command spans several lines: run_command runs one command per call');
  if (line.includes('\0')) throw new ToolError('the command contains a NUL byte');
  const entries = parse(line, (variable: string): Variable => ({ variable }));
  const argv: string[] = [];
  for (const entry of entries) {
    if (typeof entry !== 'string') throw new ToolError(refusal(entry));
    if (entry.includes('`')) throw new ToolError('backticks are not run: there is no shell; remove them');
    argv.push(entry);
  }
  if (argv.length === 0) throw new ToolError('the command names no program');
  return argv;
}
