import type { OptionName } from './options.js';

/** One CLI command as help shows it and the parser checks it: how to write it, its options, examples. */
export interface CliCommandSpec {
  /** The word after `troupe` ('' for plain `troupe`). */
  name: string;
  /** One line for the command list of `troupe --help`. */
  summary: string;
  /** Its forms, each a whole command line. */
  synopsis: string[];
  /** What it does, in a few lines. */
  description: string[];
  /** The options it accepts, with a help text of its own where the shared one does not fit. */
  options: (OptionName | [OptionName, string])[];
  /** How many positional words it takes at most (null: any number, e.g. a brief). */
  positionals: number | null;
  /** Command lines that work as written (a test runs them through the parser). */
  examples: string[];
}

/** Every command, in the order `troupe --help` lists them. */
export const COMMAND_SPECS: readonly CliCommandSpec[] = [
  {
    name: '',
    summary: 'open the terminal UI (piped stdin: read the brief and commands line by line, print the transcript)',
    synopsis: ['troupe [--team DIR] [--mode fsm|simple] [--max-turns N] [--demo] [--json] [--allow-network]'],
    description: [
      'On a terminal, the UI opens: the first line you type is the brief; commands start with ! or / (!help).',
      'With piped stdin, the first line is the brief and the rest are replies and commands, each applied once',
      'the team waits; empty input runs a demo brief. The session is stored; troupe resume continues it.',
    ],
    options: [
      'team',
      'mode',
      'max-turns',
      'demo',
      ['json', 'print every event as one JSON line instead of the transcript (never opens the UI)'],
      ['allow-network', 'let a workflow opened with /workflow run agents whose command_policy says "network": true'],
    ],
    positionals: 0,
    examples: ['troupe', "printf 'a tide-pool puzzle game\\n!status\\n!approve\\n' | troupe", 'troupe --team ./my-team --mode simple'],
  },
  {
    name: 'run',
    summary: 'run a session (or a workflow) headless until it needs you, and print the transcript',
    synopsis: [
      'troupe run "<brief>" [--mode fsm|simple] [--team DIR] [--max-turns N] [--json] [--demo] [--record FILE | --replay FILE]',
      'troupe run --workflow W --input X [--roles DIR|FILE] [--team DIR] [--max-turns N] [--json] [--demo] [--record FILE | --replay FILE] [--allow-network]',
    ],
    description: [
      'Runs until the team needs you (the run lets go of the session, exit 0; troupe resume continues it) or the',
      'session ends. A run that stops on a failed model call exits 1. Config errors exit 1, bad flags 2.',
    ],
    options: ['team', 'mode', 'max-turns', 'json', 'demo', 'record', 'replay', 'workflow', 'input', 'roles', 'allow-network'],
    positionals: null,
    examples: [
      'troupe run "a cozy lighthouse game"',
      'troupe run "a cozy lighthouse game" --json --max-turns 4',
      'troupe run --workflow coder_reviewer --input "a bech32 encoder in TypeScript"',
      'troupe run "a tide game" --record session.jsonl',
    ],
  },
  {
    name: 'resume',
    summary: 'continue a stored session (the latest that can go on, by default)',
    synopsis: ['troupe resume [id] [--roles DIR|FILE] [--workflow W] [--team DIR] [--json] [--demo] [--yes] [--allow-network]'],
    description: [
      'Reopens a stored session (an id or a unique prefix) and re-runs a turn that was in flight. On a terminal',
      'it opens the UI; with piped stdin (or --json) it runs headless, reading replies and commands like troupe.',
      'A session that ran from a recording (--replay) continues on another model only when you say so.',
      "A workflow session's agents get no more than its workflow file (with --roles, as the run had) gives them now.",
      'The team and workflow files a session names are trusted as your troupe sealed them when it started it (a key',
      'in ~/.config/troupe): for a session made elsewhere or edited, name them yourself with --workflow and --team',
      '(once: the session is sealed with what you name).',
    ],
    options: [
      'json',
      'demo',
      'yes',
      'roles',
      ['workflow', 'the workflow the session runs (a name, a .json file or a folder): its agents get no more than it gives'],
      ['team', 'the team directory the session runs with'],
      'allow-network',
    ],
    positionals: 1,
    examples: ['troupe resume', 'troupe resume 3f2a9c1d', "echo '!approve' | troupe resume"],
  },
  {
    name: 'sessions',
    summary: 'list stored sessions: id, started, brief, state, turns, status, cost',
    synopsis: ['troupe sessions [--restate-url URL]'],
    description: [
      'Newest first; an unreadable session is listed with the reason. Sessions live in TROUPE_DATA_DIR (default .troupe/).',
      'With --restate-url (or TROUPE_RESTATE_URL): the sessions on that Restate cluster, with their status now.',
    ],
    options: [['restate-url', 'list the sessions on this Restate ingress instead of the local ones']],
    positionals: 0,
    examples: ['troupe sessions', 'troupe sessions --restate-url http://127.0.0.1:8080'],
  },
  {
    name: 'show',
    summary: "print a stored session's transcript, then every transition with its arbitration",
    synopsis: ['troupe show [id]'],
    description: ['Read-only. Without an id, the most recently updated session.'],
    options: [],
    positionals: 1,
    examples: ['troupe show', 'troupe show 3f2a9c1d'],
  },
  {
    name: 'export',
    summary: 'print a stored session as Markdown, or as its JSON document with its events',
    synopsis: ['troupe export [id] [md|json]', 'troupe export [id] --format md|json'],
    description: ['Read-only. Without an id, the most recently updated session.'],
    options: ['format'],
    positionals: 2,
    examples: ['troupe export 3f2a9c1d > session.md', 'troupe export 3f2a9c1d --format json'],
  },
  {
    name: 'fork',
    summary: "list a session's steps; with --at, fork it there into a new session and go on like resume",
    synopsis: ['troupe fork <id>', 'troupe fork <id> --at STEP [--roles DIR|FILE] [--workflow W] [--team DIR] [--json] [--demo] [--yes] [--allow-network]'],
    description: [
      "Without --at: the session's journal steps, one a line. With --at: a new session with the same definition and",
      'the journal up to that step, which then goes on like troupe resume. The session forked stays as it is.',
    ],
    options: [
      'at',
      'json',
      'demo',
      'yes',
      'roles',
      ['workflow', 'the workflow the session runs (as for troupe resume)'],
      ['team', 'the team directory the session runs with (as for troupe resume)'],
      'allow-network',
    ],
    positionals: 1,
    examples: ['troupe fork 3f2a9c1d', 'troupe fork 3f2a9c1d --at 12'],
  },
  {
    name: 'validate',
    summary: 'check the team and the workflows (or one) and report every problem at once',
    synopsis: ['troupe validate [--team DIR] [--workflow W]'],
    description: [
      'Prints every problem as file: field: problem — fix (a JSON syntax error as file:line:column: problem — fix)',
      'and exits 1; a clean team and workflows give a one-line summary each. --workflow checks that one workflow.',
    ],
    options: ['team', ['workflow', 'check only this workflow (a name, a .json file or a folder)'], 'roles'],
    positionals: 0,
    examples: ['troupe validate', 'troupe validate --team ./my-team', 'troupe validate --workflow my-flow'],
  },
  {
    name: 'graph',
    summary: 'print the team (or a workflow) as a Mermaid state diagram',
    synopsis: ['troupe graph [--team DIR] [--workflow W]'],
    description: ['Sub-workflows are nested in their state.'],
    options: ['team', ['workflow', 'draw this workflow instead of the team'], 'roles'],
    positionals: 0,
    examples: ['troupe graph', 'troupe graph --workflow hierarchical_development'],
  },
  {
    name: 'schemas',
    summary: 'write (or check) the JSON Schemas in schemas/ from the zod schemas',
    synopsis: ['troupe schemas [--check]'],
    description: ['Editors validate team, persona, workflow and roles files against these ($schema in each file).'],
    options: ['check'],
    positionals: 0,
    examples: ['troupe schemas --check'],
  },
  {
    name: 'workflows',
    summary: 'list the workflows (TROUPE_WORKFLOWS, ./workflows, then the shipped ones) with descriptions',
    synopsis: ['troupe workflows'],
    description: ['Run one with troupe run --workflow <name> --input "…", or in the UI with /workflow <name> <input>.'],
    options: [],
    positionals: 0,
    examples: ['troupe workflows'],
  },
  {
    name: 'serve',
    summary: 'run many sessions behind an HTTP API with SSE and a live page',
    synopsis: ['troupe serve [--port N] [--host H] [--team DIR] [--demo] [--backend embedded|restate] [--restate-url URL] [--allow-workflow-paths] [--allow-network]'],
    description: ['Prints its URL on the first line and runs until Ctrl+C or SIGTERM (sessions are saved). Off loopback', 'TROUPE_SERVE_TOKEN must be set (at least 32 random characters).'],
    options: [['port', 'port to listen on (default 4810; 0 picks a free one)'], 'host', 'team', 'demo', 'backend', 'restate-url', 'allow-workflow-paths', 'allow-network'],
    positionals: 0,
    examples: ['troupe serve', 'troupe serve --port 0', 'troupe serve --backend restate --restate-url http://127.0.0.1:8080'],
  },
  {
    name: 'worker',
    summary: 'serve the Restate endpoint that runs sessions on Restate',
    synopsis: ['troupe worker [--port N] [--host H] [--team DIR] [--demo] [--register URL] [--advertise URL] [--allow-workflow-paths] [--allow-network]'],
    description: ["Runs until Ctrl+C or SIGTERM. Off loopback it needs TROUPE_RESTATE_IDENTITY_KEYS (the cluster's public keys)."],
    options: [
      ['port', 'port to listen on (default 9080; 0 picks a free one)'],
      'host',
      'team',
      'demo',
      'register',
      'advertise',
      ['allow-workflow-paths', 'run a workflow a session names by path (default: only the named workflows of the workflow directories)'],
      'allow-network',
    ],
    positionals: 0,
    examples: ['troupe worker --register http://127.0.0.1:9070', 'troupe worker --host 0.0.0.0 --port 9080'],
  },
  {
    name: 'help',
    summary: "a command's help: synopsis, options, examples (the same as troupe <command> --help)",
    synopsis: ['troupe help [command]'],
    description: ['Without a command, the list of commands.'],
    options: [],
    positionals: 1,
    examples: ['troupe help run', 'troupe help'],
  },
];

/** A command's spec by name ('' for plain troupe). */
export function commandSpec(name: string): CliCommandSpec | undefined {
  return COMMAND_SPECS.find((c) => c.name === name);
}

/** The option names a command accepts (--help always). */
export function optionsOf(spec: CliCommandSpec): OptionName[] {
  return [...spec.options.map((o) => (typeof o === 'string' ? o : o[0])), 'help'];
}
