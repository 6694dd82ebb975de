import { parseArgs } from 'node:util';
import { MAX_TURNS } from '../config/max-turns.js';
import { UserError } from '../errors.js';

/** The usage text printed by --help and on bad flags. */
export const USAGE = `usage: troupe [command] [options]

commands:
  (none)                     open the terminal UI (with piped stdin: read the brief and commands
                             line by line and print the transcript)
  run "<brief>"              run a session headless and print the transcript
  run --workflow W --input X run a declarative workflow (a name, a .json file or a folder) on an input
  workflows                  list the workflows (yours in ./workflows, then the shipped ones)
  validate [--workflow W]    check the team and the workflows (or one) and report every problem
  graph [--workflow W]       print the team (or a workflow) as a Mermaid state diagram
  schemas [--check]          write (or check) the JSON Schemas in schemas/
  sessions                   list stored sessions (id, started, brief, state, turns, status, cost)
  resume [id]                continue a stored session (latest by default) until it needs you
  show <id>                  print a stored session's transcript and decisions
  export <id> [md|json]      print a stored session as Markdown (md, default) or JSON (json)
  fork <id> [--at STEP]      list a session's steps; with --at: fork it there into a new session and go on
                             from there like resume (the session forked stays as it is)
  serve [--port N] [--host H] run sessions behind an HTTP API with a live page (TROUPE_SERVE_TOKEN)
  worker [--port N] [--register URL]  serve the Restate endpoint that runs sessions on Restate

options:
  --team DIR                 team directory holding personas/ and prompts/ (default: the shipped V7 studio)
  --mode fsm|simple          routing: the state machine (default) or the linear pipeline
  --max-turns N              stop after N persona turns
  --json                     print every event as one JSON line
  --demo                     use the offline demo model even when an API key is set
  --format md|json           export format
  --at STEP                  fork: the journal step to fork at (troupe fork <id> lists them)
  --record FILE              write every model request and response to FILE (JSON lines, no keys)
  --replay FILE              run offline from a recording; reports the first divergence
  --workflow W               run, validate or graph a workflow instead of the team
  --input TEXT|JSON          a workflow's input (JSON when the workflow declares a non-string input)
  --port N, --host H         serve: where to listen (default 127.0.0.1:4810; port 0 picks a free one);
                             worker: default 127.0.0.1:9080
  --backend embedded|restate serve: host sessions in this process (default) or on Restate
  --allow-workflow-paths     serve: let API requests run a workflow by path (default: only the named
                             workflows of the workflow directories)
  --restate-url URL          serve --backend restate: the Restate ingress (default http://127.0.0.1:8080)
  --register URL             worker: register with this Restate admin API (e.g. http://127.0.0.1:9070)
  --advertise URL            worker: the URL Restate calls (a load balancer in front of several workers)
  -h, --help                 show this help`;

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
  format?: string;
  port?: number;
  host?: string;
  /** A workflow name or path (run, graph, validate). */
  workflow?: string;
  /** A workflow's input (JSON or text). */
  input?: string;
  /** fork: the journal step to fork at. */
  at?: number;
  /** serve: where sessions run. */
  backend?: 'embedded' | 'restate';
  /** serve: API requests may name a workflow by path, not only by name. */
  allowWorkflowPaths: boolean;
  /** serve --backend restate: the Restate ingress URL. */
  restateUrl?: string;
  /** worker: the Restate admin API to register with. */
  register?: string;
  /** worker: the URL to register (default: the worker's own). */
  advertise?: string;
}

/** Thrown for bad flags; the CLI prints the usage line and exits 2. */
export class UsageError extends UserError {}

/** Parses argv (without node and script) into typed options. */
export function parseCli(argv: string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        team: { type: 'string' },
        mode: { type: 'string' },
        'max-turns': { type: 'string' },
        json: { type: 'boolean', default: false },
        demo: { type: 'boolean', default: false },
        record: { type: 'string' },
        replay: { type: 'string' },
        check: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        format: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        workflow: { type: 'string' },
        input: { type: 'string' },
        at: { type: 'string' },
        backend: { type: 'string' },
        'restate-url': { type: 'string' },
        register: { type: 'string' },
        advertise: { type: 'string' },
        'allow-workflow-paths': { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]!);
  }
  const { values, positionals } = parsed;
  const mode = values.mode;
  if (mode !== undefined && mode !== 'fsm' && mode !== 'simple') throw new UsageError(`--mode must be fsm or simple, got "${mode}"`);
  let maxTurns: number | undefined;
  if (values['max-turns'] !== undefined) {
    maxTurns = Number(values['max-turns']);
    if (!/^\d+$/.test(values['max-turns']) || !Number.isInteger(maxTurns) || maxTurns < 1 || maxTurns > MAX_TURNS) {
      throw new UsageError(`--max-turns must be a whole number from 1 to ${MAX_TURNS}, got "${values['max-turns']}"`);
    }
  }
  if (values.record !== undefined && values.replay !== undefined) throw new UsageError('--record and --replay cannot be used together');
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port must be a port number (0 picks a free one), got "${values.port}"`);
  }
  let at: number | undefined;
  if (values.at !== undefined) {
    at = Number(values.at);
    if (!/^\d{1,9}$/.test(values.at)) throw new UsageError(`--at must be a step number (troupe fork <id> lists them), got "${values.at}"`);
  }
  const backend = values.backend;
  if (backend !== undefined && backend !== 'embedded' && backend !== 'restate') throw new UsageError(`--backend must be embedded or restate, got "${backend}"`);
  for (const flag of ['restate-url', 'register', 'advertise'] as const) {
    const url = values[flag];
    if (url !== undefined && !URL.canParse(url)) throw new UsageError(`--${flag} must be a URL such as http://127.0.0.1:${flag === 'register' ? 9070 : flag === 'advertise' ? 9080 : 8080}, got "${url}"`);
  }
  const [command = '', ...rest] = positionals;
  return {
    command,
    positionals: rest,
    ...(values.team !== undefined ? { team: values.team } : {}),
    ...(mode !== undefined ? { mode } : {}),
    ...(maxTurns !== undefined ? { maxTurns } : {}),
    json: values.json,
    demo: values.demo,
    ...(values.record !== undefined ? { record: values.record } : {}),
    ...(values.replay !== undefined ? { replay: values.replay } : {}),
    check: values.check,
    help: values.help,
    ...(values.format !== undefined ? { format: values.format } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(values.workflow !== undefined ? { workflow: values.workflow } : {}),
    ...(values.input !== undefined ? { input: values.input } : {}),
    ...(at !== undefined ? { at } : {}),
    ...(backend !== undefined ? { backend } : {}),
    ...(values['restate-url'] !== undefined ? { restateUrl: values['restate-url'] } : {}),
    ...(values.register !== undefined ? { register: values.register } : {}),
    ...(values.advertise !== undefined ? { advertise: values.advertise } : {}),
    allowWorkflowPaths: values['allow-workflow-paths'],
  };
}
