import { parseArgs } from 'node:util';
import { MAX_TURNS } from '../config/max-turns.js';
import { UserError } from '../errors.js';
import { commandSpec, optionsOf } from './command-specs.js';
import { OPTIONS } from './options.js';

/** Parsed command line. */
export interface CliArgs {
  command: string;
  positionals: string[];
  team?: string;
  mode?: 'fsm' | 'simple';
  maxTurns?: number;
  json: boolean;
  demo: boolean;
  record?: string;
  replay?: string;
  check: boolean;
  help: boolean;
  /** resume: continue a session that ran from a recording on the model there is now, without asking. */
  yes: boolean;
  format?: string;
  port?: number;
  host?: string;
  /** A workflow name or path (run, graph, validate). */
  workflow?: string;
  /** A roles folder (SynthDev's config/roles) or roles file for a workflow's agents. */
  roles?: string;
  /** A workflow's input (JSON or text). */
  input?: string;
  /** fork: the journal step to fork at. */
  at?: number;
  /** serve: where sessions run. */
  backend?: 'embedded' | 'restate';
  /** run, resume, fork, serve: a workflow's agents may turn their commands' network on (command_policy.network). */
  allowNetwork: boolean;
  /** serve: API requests may name a workflow by path, not only by name. */
  allowWorkflowPaths: boolean;
  /** serve --backend restate: the Restate ingress URL. */
  restateUrl?: string;
  /** worker: the Restate admin API to register with. */
  register?: string;
  /** worker: the URL to register (default: the worker's own). */
  advertise?: string;
}

/** Thrown for bad flags; the CLI prints the command's usage line and exits 2. */
export class UsageError extends UserError {
  /** The command whose usage applies (undefined: troupe's own). */
  command: string | undefined;

  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}

// node:util's parser knows every option; which ones a command takes is checked against its spec after.
const PARSER_OPTIONS = Object.fromEntries(Object.entries(OPTIONS).map(([name, o]) => [name, { type: o.type, ...('short' in o ? { short: o.short } : {}) }])) as {
  [K in keyof typeof OPTIONS]: { type: (typeof OPTIONS)[K]['type']; short?: string };
};

// A value option followed by a negative number (`--at -1`) takes it as its value, which the option's own check
// then judges ("--at must be a step number"): node's parser calls it ambiguous, in words of its own.
const VALUE_OPTIONS = new Set(Object.entries(OPTIONS).flatMap(([name, o]) => (o.type === 'string' ? [`--${name}`] : [])));
function joinNegative(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return [...out, ...argv.slice(i)];
    if (VALUE_OPTIONS.has(a) && /^-\d/.test(argv[i + 1] ?? '')) out.push(`${a}=${argv[++i]}`);
    else out.push(a);
  }
  return out;
}

/** node's parseArgs refusal in troupe's words: one line naming the option and the fix. */
export function parseProblem(message: string): string {
  const first = message.split('\n')[0]!;
  const [, option = ''] = /^(?:Unknown option|Option) '(-[^' ]+)/.exec(first) ?? [];
  if (/argument is ambiguous/.test(first)) return `${option} needs a value; one that starts with "-" is written ${option}=VALUE`;
  if (/argument missing/.test(first)) return `${option} needs a value`;
  if (/does not take an argument/.test(first)) return `${option} takes no value`;
  return first;
}

/** node's parseArgs over troupe's options; a line it refuses is a usage error naming the command and the fix. */
function parseOrExplain(argv: string[]) {
  try {
    return parseArgs({ args: joinNegative(argv), allowPositionals: true, strict: true, tokens: true, options: PARSER_OPTIONS });
  } catch (error) {
    throw new UsageError(parseProblem((error as Error).message), commandOf(argv));
  }
}

/** Parses argv (without node and script) into typed options. */
export function parseCli(argv: string[]): CliArgs {
  const parsed = parseOrExplain(argv);
  const { values, positionals, tokens } = parsed;
  const [command = '', ...rest] = positionals;
  const spec = commandSpec(command);
  // A command takes its own options and arguments (unless help is asked for, which any line may do).
  if (spec && !values.help) {
    const accepted = new Set<string>(optionsOf(spec));
    const stranger = tokens.find((t) => t.kind === 'option' && !accepted.has(t.name));
    const shown = spec.name || 'troupe with no command';
    if (stranger && stranger.kind === 'option') throw new UsageError(`${shown} does not take ${stranger.rawName}`, command);
    if (spec.positionals !== null && rest.length > spec.positionals) {
      throw new UsageError(
        spec.positionals === 0 ? `${shown} takes no arguments, got "${rest.join(' ')}"` : `${shown} takes at most ${spec.positionals} argument(s), got "${rest.join(' ')}"`,
        command,
      );
    }
  }
  const usage = (message: string) => new UsageError(message, command);
  const mode = values.mode;
  if (mode !== undefined && mode !== 'fsm' && mode !== 'simple') throw usage(`--mode must be fsm or simple, got "${mode}"`);
  let maxTurns: number | undefined;
  if (values['max-turns'] !== undefined) {
    maxTurns = Number(values['max-turns']);
    if (!/^\d+$/.test(values['max-turns']) || !Number.isInteger(maxTurns) || maxTurns < 1 || maxTurns > MAX_TURNS) {
      throw usage(`--max-turns must be a whole number from 1 to ${MAX_TURNS}, got "${values['max-turns']}"`);
    }
  }
  if (values.record !== undefined && values.replay !== undefined) throw usage('--record and --replay cannot be used together');
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) throw usage(`--port must be a port number (0 picks a free one), got "${values.port}"`);
  }
  let at: number | undefined;
  if (values.at !== undefined) {
    at = Number(values.at);
    if (!/^\d{1,9}$/.test(values.at)) throw usage(`--at must be a step number (troupe fork <id> lists them), got "${values.at}"`);
  }
  const backend = values.backend;
  if (backend !== undefined && backend !== 'embedded' && backend !== 'restate') throw usage(`--backend must be embedded or restate, got "${backend}"`);
  for (const flag of ['restate-url', 'register', 'advertise'] as const) {
    const url = values[flag];
    if (url !== undefined && !URL.canParse(url)) throw usage(`--${flag} must be a URL such as http://127.0.0.1:${flag === 'register' ? 9070 : flag === 'advertise' ? 9080 : 8080}, got "${url}"`);
  }
  return {
    command,
    positionals: rest,
    ...(values.team !== undefined ? { team: values.team } : {}),
    ...(mode !== undefined ? { mode } : {}),
    ...(maxTurns !== undefined ? { maxTurns } : {}),
    json: values.json ?? false,
    demo: values.demo ?? false,
    ...(values.record !== undefined ? { record: values.record } : {}),
    ...(values.replay !== undefined ? { replay: values.replay } : {}),
    check: values.check ?? false,
    help: values.help ?? false,
    yes: values.yes ?? false,
    ...(values.format !== undefined ? { format: values.format } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(values.workflow !== undefined ? { workflow: values.workflow } : {}),
    ...(values.input !== undefined ? { input: values.input } : {}),
    ...(at !== undefined ? { at } : {}),
    ...(values.roles !== undefined ? { roles: values.roles } : {}),
    ...(backend !== undefined ? { backend } : {}),
    ...(values['restate-url'] !== undefined ? { restateUrl: values['restate-url'] } : {}),
    ...(values.register !== undefined ? { register: values.register } : {}),
    ...(values.advertise !== undefined ? { advertise: values.advertise } : {}),
    allowWorkflowPaths: values['allow-workflow-paths'] ?? false,
    allowNetwork: values['allow-network'] ?? false,
  };
}

/** The command a line names (its first word that is not an option), for the usage line of an error the parser could not place. */
function commandOf(argv: string[]): string | undefined {
  const word = argv.find((a) => !a.startsWith('-'));
  return word !== undefined && commandSpec(word) ? word : undefined;
}
