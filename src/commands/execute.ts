import { sizeProblem } from '../llm/limits.js';
import { displayNames } from '../report/display-items.js';
import { formatSessionTable } from '../report/sessions-table.js';
import { timelineOf } from '../report/timeline.js';
import type { TroupeSession } from '../session/troupe-session.js';
import { inspect } from './inspect.js';
import type { MemorySource } from './memory-source.js';
import { parseLine, type ParsedLine } from './parse.js';
import type { SessionUsage } from '../usage/session-usage.js';
import type { WarmingView } from '../warming/warming-view.js';

/** The part of a session a line uses (a running TroupeSession, or a session hosted elsewhere, e.g. on Restate). */
export type LineSession = Pick<TroupeSession, 'def' | 'getSnapshot' | 'start' | 'send' | 'recent' | 'history' | 'store' | 'approvals'>;

/** Lists and opens workflows (the UI gives one; elsewhere `/workflow` says where workflows run). */
export interface WorkflowLauncher {
  /** The workflows there are, as lines to show (read when asked). */
  list(): Promise<string[]>;
  /** Opens a new session running the workflow on the input (it is started). */
  open(name: string, input: string): Promise<TroupeSession>;
  /** Forks a stored session at a journal step and opens the fork (not yet resumed: the UI resumes it once it listens). */
  rewind?(id: string, step: number): Promise<TroupeSession>;
}

/** What a line acts on: the session, plus readers for usage and memory, and the workflow launcher. */
export interface LineHost {
  session: LineSession;
  /** The session's usage, read when a line asks (the meter's totals: `session.usage()`). */
  usage: () => SessionUsage;
  memory?: MemorySource | undefined;
  workflows?: WorkflowLauncher | undefined;
  /** The session's state warming, read when a line asks (`session.warming()`; absent: none). */
  warming?: (() => WarmingView | null) | undefined;
}

/** What the caller shows after a line: nothing (the bus tells the story), some output, or leave. */
export type LineOutcome =
  | { kind: 'none' }
  | { kind: 'output'; title: string; lines: string[]; tone: 'info' | 'error' }
  | { kind: 'later'; title: string; lines: Promise<string[]> }
  | { kind: 'switch'; title: string; session: Promise<TroupeSession> /** The session is resumed (a fork), not started, once the UI listens. */; resume?: boolean }
  | { kind: 'quit' };

// Inspections that read the event log: the session keeps only a window of it in RAM, so they read the store.
const LOG_READERS = new Set(['history', 'branches', 'debate']);

/**
 * The detail of the detach `!quit` records. The CLI's next line names the command that continues it, as the user
 * can type it (`npm start -- resume <id>` before `npm link`); a fixed "troupe resume" here named one that may not exist.
 */
export const LEFT_DETAIL = 'the session is saved';

/** Applies one parsed line: starts the session, steers the engine, or answers an inspection. */
export function applyParsed(parsed: ParsedLine, host: LineHost): LineOutcome {
  const { session } = host;
  switch (parsed.kind) {
    case 'empty':
      return { kind: 'none' };
    case 'text': {
      const idle = session.getSnapshot().status === 'idle';
      const problem = sizeProblem(idle ? 'brief' : 'inputLine', parsed.text);
      if (problem) return { kind: 'output', title: idle ? 'brief' : 'input', lines: [problem], tone: 'error' };
      if (idle) session.start(parsed.text);
      else session.send({ type: 'user_message', text: parsed.text });
      return { kind: 'none' };
    }
    case 'engine':
      session.send({ ...parsed.input, command: { name: parsed.name, args: parsed.args } } as typeof parsed.input);
      return { kind: 'none' };
    case 'quit':
      // Leaving keeps the session resumable: a turn in flight is aborted unapplied and re-run on resume.
      session.send({ type: 'detach', reason: 'user_left', detail: LEFT_DETAIL, command: { name: 'quit', args: [] } });
      return { kind: 'quit' };
    case 'workflow': {
      const launcher = host.workflows;
      if (!launcher)
        return { kind: 'output', title: 'workflow', lines: ['workflows run in the terminal UI (/workflow <name> <input>) and with troupe run --workflow <name> --input "..."'], tone: 'error' };
      if (parsed.name === '') return { kind: 'later', title: 'workflows', lines: launcher.list().then((lines) => [...lines, '', 'run one: /workflow <name> <input>']) };
      if (parsed.input.trim() === '') return { kind: 'output', title: 'workflow', lines: [`usage: /workflow ${parsed.name} <input> — the workflow needs an input`], tone: 'error' };
      const problem = sizeProblem('brief', parsed.input);
      if (problem) return { kind: 'output', title: 'workflow', lines: [problem], tone: 'error' };
      return { kind: 'switch', title: 'workflow', session: launcher.open(parsed.name, parsed.input) };
    }
    case 'approval': {
      const answered = session.approvals.answer(parsed.allow);
      if (!answered) return { kind: 'output', title: parsed.allow ? 'allow' : 'deny', lines: ['no command is waiting for your approval'], tone: 'error' };
      const left = session.approvals.pending().length;
      return { kind: 'output', title: parsed.allow ? 'allow' : 'deny', lines: [`${parsed.allow ? 'allowed' : 'denied'}: ${answered.command}${left ? ` (${left} more waiting)` : ''}`], tone: 'info' };
    }
    case 'error':
      return { kind: 'output', title: 'command', lines: [parsed.message], tone: 'error' };
    case 'rewind': {
      const store = session.store;
      const rewind = host.workflows?.rewind;
      const id = session.getSnapshot().id;
      if (!store || !rewind)
        return {
          kind: 'output',
          title: 'rewind',
          lines: [`!rewind works in the terminal UI on a stored session; elsewhere: troupe fork ${id.slice(0, 8)} --at <step>, or the console's timeline`],
          tone: 'error',
        };
      if (parsed.step === null) return { kind: 'later', title: 'rewind', lines: stepLines(session) };
      return { kind: 'switch', title: 'rewind', session: rewind(id, parsed.step), resume: true };
    }
    case 'inspect': {
      // Read when asked, so the table is never the previous one.
      if (parsed.name === 'sessions') return { kind: 'later', title: 'sessions', lines: storedSessions(session) };
      const workspaceRoot = 'workspaceRoot' in session ? (session as { workspaceRoot: string | null }).workspaceRoot : null;
      const sources = { def: session.def, session: session.getSnapshot(), events: session.recent(), usage: host.usage(), memory: host.memory, warming: host.warming?.() ?? null, workspaceRoot };
      const name = parsed.name;
      if (LOG_READERS.has(name)) return { kind: 'later', title: name, lines: session.history().then((events) => inspect(name, { ...sources, events }).lines) };
      return { kind: 'output', ...inspect(name, sources), tone: 'info' };
    }
  }
}

/** The session's last steps from its journal, as `!rewind` lists them. */
async function stepLines(session: LineSession): Promise<string[]> {
  const id = session.getSnapshot().id;
  const read = await session.store!.read(id);
  const steps = timelineOf(read.records, displayNames(session.def));
  const shown = steps.slice(-20);
  return [
    ...(steps.length > shown.length ? [`(${steps.length - shown.length} earlier steps: troupe show ${id.slice(0, 8)})`] : []),
    ...shown.map((s) => `${String(s.step).padStart(5)}  ${s.title}`),
    '',
    'fork the session at a step and move to the fork: !rewind <step> (this session stays as it is)',
  ];
}

/** The stored sessions as table lines (or why there are none). */
async function storedSessions(session: LineSession): Promise<string[]> {
  const store = session.store;
  if (!store) return ['sessions are not stored in this run'];
  const entries = await store.list();
  const rows = entries.flatMap((e) => ('listing' in e ? [{ listing: e.listing, lockedBy: e.lockedBy }] : []));
  return [...(rows.length ? formatSessionTable(rows) : ['no stored sessions']), ...entries.flatMap((e) => ('error' in e ? [`! ${e.id}: unreadable — ${e.error}`] : []))];
}

/** Parses and applies one input line. */
export function executeLine(line: string, host: LineHost): LineOutcome {
  // Checked before parsing, so no work at all is spent on a runaway paste.
  const problem = sizeProblem('inputLine', line);
  if (problem) return { kind: 'output', title: 'input', lines: [problem], tone: 'error' };
  return applyParsed(parseLine(line, host.session.def), host);
}
