/** One user command: its name, how to write it, and what it does (shown by !help). */
export interface CommandSpec {
  name: string;
  usage: string;
  summary: string;
  /** What its first argument names, for completion and checking. */
  arg?: 'persona' | 'major' | 'text' | 'workflow';
  aliases?: string[];
  /**
   * The kind of session whose policy the command steers ("team": the arbiter, personas, majors, modes);
   * absent when it means something in every kind. In another kind it is passed on unresolved, and that
   * kind's policy answers it with one note.
   */
  steers?: 'team';
}

/** Every command, in the order !help lists them. Each works with `!` or `/`. */
export const COMMANDS: readonly CommandSpec[] = [
  { name: 'approve', usage: '!approve', summary: 'approve the work or the pending transition at a gate and continue' },
  { name: 'rework', usage: '!rework [reason]', summary: 'send the current work back to its author with a reason', arg: 'text', steers: 'team' },
  { name: 'handoff', usage: '!handoff <persona>', summary: 'give control to a persona now (arbiter bypassed, flagged user-requested)', arg: 'persona', steers: 'team' },
  { name: 'switch_to', usage: '!switch_to <MAJOR>', summary: "give control to a major state's lead persona", arg: 'major', aliases: ['switch'], steers: 'team' },
  { name: 'call_agent', usage: '!call_agent <persona> [message]', summary: 'consult a persona; control comes back afterwards', arg: 'persona', aliases: ['call'], steers: 'team' },
  { name: 'continue', usage: '!continue', summary: 'resume automatic progress after a pause' },
  { name: 'simple', usage: '!simple', summary: 'switch to the linear pipeline (context is kept)', steers: 'team' },
  { name: 'fsm', usage: '!fsm', summary: 'switch to the state machine with the arbiter (context is kept)', steers: 'team' },
  { name: 'status', usage: '!status', summary: 'where the team is, what it waits for, turn and limits' },
  { name: 'history', usage: '!history', summary: 'the transitions so far and why each happened' },
  { name: 'memory', usage: '!memory', summary: 'pinned decisions and memory summaries' },
  { name: 'cost', usage: '!cost', summary: 'tokens and cost so far, per persona' },
  { name: 'branches', usage: '!branches', summary: 'the parallel branches of a workflow: who works on what, done, failed, the files they changed' },
  { name: 'debate', usage: '!debate', summary: "the reviewers' debate so far: each verdict by round, and how it ended" },
  { name: 'allow', usage: '!allow', summary: 'let the command an agent asked to run go ahead (command policy "ask")' },
  { name: 'deny', usage: '!deny', summary: 'refuse the command an agent asked to run' },
  { name: 'rewind', usage: '!rewind [step]', summary: "the session's steps; with a step: fork the session there (this one stays as it is) and move to the fork", arg: 'text' },
  { name: 'sessions', usage: '!sessions', summary: 'stored sessions (resume one with: troupe resume <id>)' },
  { name: 'help', usage: '!help', summary: 'this list', aliases: ['?'] },
  { name: 'quit', usage: '!quit', summary: 'leave; the session is saved and `troupe resume` continues it', aliases: ['exit', 'q'] },
  { name: 'workflow', usage: '/workflow <name> [input]', summary: 'run a declarative workflow', arg: 'workflow' },
];

/** Finds a command by name or alias (case-insensitive, without the `!` or `/`). */
export function findCommand(name: string): CommandSpec | undefined {
  const wanted = name.toLowerCase();
  return COMMANDS.find((c) => c.name === wanted || (c.aliases ?? []).includes(wanted));
}

/** The !help text: every command (those that steer a team marked so), plus how plain text and keys work. */
export function helpLines(): string[] {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  return [
    ...COMMANDS.map((c) => `${c.usage.padEnd(width)}  ${c.summary}${c.steers ? ` (${c.steers}s only)` : ''}`),
    '',
    'Plain text: the first line is the brief; later, it is an interjection the active persona answers next,',
    'or your reply when the team waits for you. Commands start with ! or / and work at any time.',
    'Keys: Enter send · ↑/↓ input history · Tab complete a command or persona · Esc clear · Ctrl+C leave.',
  ];
}
