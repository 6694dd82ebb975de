import type { EngineInput } from '../engine/input-events.js';
import type { TroupeEvent } from '../engine/event-map.js';
import type { JournalRecord } from '../store/session-file.js';
import { displayFold, markedText, type DisplayNames } from './display-items.js';

/** One step of a session's timeline: a journal input and the lines of runtime facts after it. */
export interface TimelineStep {
  /** The journal line the step ends at: fork or look at the session here (`troupe fork <id> --at <step>`). */
  step: number;
  /** Who made the step happen: the user (a line, a command, the brief), an agent's answer, or the system (code, limits, a process letting go). */
  by: 'user' | 'agent' | 'system';
  /** What happened, in a line. */
  title: string;
  /** The display items of its events, worded as the transcript words them. */
  lines: string[];
  /** When (epoch ms of its first event; null when it published none). */
  at: number | null;
  /** The seq of its last event (0 when none): the transcript up to here is the session as it was. */
  lastSeq: number;
  /** The turn count after the step's events (the last agent message's turn so far). */
  turn: number;
}

/** The persona an agent answer came from, from the step's events. */
function answered(events: readonly TroupeEvent[], names: DisplayNames): string {
  const m = events.find((e) => e.type === 'agent_message');
  if (m && m.type === 'agent_message') return `${names.name(m.persona)}${m.branch ? ` [${m.branch}]` : ''} answered`;
  return 'an agent answered';
}

/** The title of a step from its input. */
function titleOf(input: EngineInput, events: readonly TroupeEvent[], names: DisplayNames): { by: TimelineStep['by']; title: string } {
  const command = 'command' in input && input.command ? `!${[input.command.name, ...input.command.args].join(' ')}` : null;
  if (command) return { by: 'user', title: `You: ${command}` };
  switch (input.type) {
    case 'start':
      return { by: 'user', title: `${names.workflow ? 'Input' : 'Brief'}: ${input.brief}` };
    case 'user_message':
      return { by: 'user', title: `You: ${input.text}` };
    case 'agent_completed':
    case 'agent_replied':
      return { by: 'agent', title: answered(events, names) };
    case 'agent_failed':
      return { by: 'agent', title: `a turn failed: ${input.reason}` };
    case 'evaluated':
      return { by: 'system', title: input.result.ok ? 'workflow code ran' : `workflow code failed: ${input.result.error}` };
    case 'budget_exceeded':
      return { by: 'system', title: `budget reached: ${input.reason}` };
    case 'detach':
      return { by: 'system', title: `paused: ${input.reason.replace(/_/g, ' ')}` };
    default:
      return { by: 'user', title: input.type.replace(/^user_/, '').replace(/_/g, ' ') };
  }
}

const firstLine = (text: string, max = 160) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** A session's steps from its journal records (pure): each input with the facts after it, worded once. */
export function timelineOf(records: readonly JournalRecord[], names: DisplayNames): TimelineStep[] {
  const words = displayFold(names);
  const steps: TimelineStep[] = [];
  let turn = 0;
  for (const whole of records) {
    // A step's line (schema 6) starts with the facts published before it: they join the step before, as their own lines did (which still ends where it ended).
    const facts = whole.facts ?? 0;
    const parts =
      facts > 0 && steps.length > 0
        ? [
            { n: steps.at(-1)!.step, events: whole.events.slice(0, facts) },
            { ...whole, events: whole.events.slice(facts) },
          ]
        : [whole];
    for (const record of parts) {
      const events = record.events as unknown as TroupeEvent[];
      const lines = events.flatMap((e) => words(e).map((item) => firstLine(markedText(item))));
      for (const e of events) if (e.type === 'agent_message') turn = e.turn;
      const lastSeq = events.reduce((n, e) => Math.max(n, e.seq), 0);
      const current = steps.at(-1);
      // The machine a session was created with (journal line 1) is no step: a fork at any step keeps it.
      if (record.machine && !current) continue;
      if (!record.input && current) {
        // Runtime facts (usage, retries, memory work) belong to the step before them.
        Object.assign(current, { step: record.n, lines: [...current.lines, ...lines], lastSeq: Math.max(current.lastSeq, lastSeq), turn });
        continue;
      }
      const { by, title } = record.input ? titleOf(record.input, events, names) : { by: 'system' as const, title: 'runtime facts' };
      steps.push({ step: record.n, by, title: firstLine(title), lines, at: events[0]?.at ?? null, lastSeq, turn });
    }
  }
  return steps;
}
