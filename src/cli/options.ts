/** One command-line option: its type, the value it takes (for help), and what it does. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** How help names its value, e.g. `DIR`, `fsm|simple`. */
  value?: string;
  help: string;
}

/** Every option troupe knows; each command accepts the ones its spec lists (src/cli/command-specs.ts). */
export const OPTIONS = {
  team: { type: 'string', value: 'DIR', help: 'team directory holding personas/ and prompts/ (default: the shipped V7 studio)' },
  mode: { type: 'string', value: 'fsm|simple', help: 'routing: the state machine with the arbiter (default) or the linear pipeline' },
  'max-turns': { type: 'string', value: 'N', help: 'pause after N persona turns (1 to 1,000,000; default: team.json limits.max_turns)' },
  json: { type: 'boolean', help: 'print every event as one JSON line (summaries go to stderr)' },
  demo: { type: 'boolean', help: 'use the offline demo model even when an API key is set' },
  record: { type: 'string', value: 'FILE', help: 'write every model request and response to FILE (JSON lines, no keys)' },
  replay: { type: 'string', value: 'FILE', help: 'answer the model calls from a recording, offline; stops at the first divergence' },
  workflow: { type: 'string', value: 'W', help: 'a declarative workflow instead of the team: a name, a .json file or a workflow folder' },
  input: { type: 'string', value: 'TEXT|JSON', help: "the workflow's input (parsed as JSON when the workflow declares a non-string input)" },
  roles: { type: 'string', value: 'DIR|FILE', help: "a roles folder (SynthDev's config/roles) or roles file for the workflow's agents (or TROUPE_ROLES)" },
  yes: { type: 'boolean', short: 'y', help: 'continue a session that ran from a recording (--replay) on the model there is now, without asking' },
  format: { type: 'string', value: 'md|json', help: 'Markdown (default) or the session document with its events as JSON' },
  at: { type: 'string', value: 'STEP', help: 'the journal step to fork at (troupe fork <id> lists them)' },
  check: { type: 'boolean', help: 'only check that schemas/ is up to date (exit 1 when not)' },
  port: { type: 'string', value: 'N', help: 'port to listen on (0 picks a free one)' },
  host: { type: 'string', value: 'H', help: 'address to listen on (default 127.0.0.1; off loopback a token is required)' },
  backend: { type: 'string', value: 'embedded|restate', help: 'host sessions in this process (default) or on Restate' },
  'allow-network': { type: 'boolean', help: 'let a workflow\'s agents whose command_policy says "network": true reach the network from their jail (default: refused in one line; a terminal asks)' },
  'allow-workflow-paths': { type: 'boolean', help: 'let API requests run a workflow by path (default: only the named workflows of the workflow directories)' },
  'restate-url': { type: 'string', value: 'URL', help: 'with --backend restate: the Restate ingress (default http://127.0.0.1:8080, or TROUPE_RESTATE_URL)' },
  register: { type: 'string', value: 'URL', help: 'register with this Restate admin API (e.g. http://127.0.0.1:9070)' },
  advertise: { type: 'string', value: 'URL', help: 'the URL Restate calls (a load balancer in front of several workers; default: this worker)' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies Record<string, OptionSpec>;

/** The name of an option (without its dashes). */
export type OptionName = keyof typeof OPTIONS;

/** How help writes an option: `--team DIR`, `-y, --yes`. */
export function optionLabel(name: OptionName): string {
  const spec: OptionSpec = OPTIONS[name];
  return `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.value ? ` ${spec.value}` : ''}`;
}
