import type { Decision, DisplayItem, EventData, ListItem, PredictedPersona, SessionViewJson } from './types.js';

/** A transcript entry: a display item as the server worded it, with a key for rendering. */
export type Entry = DisplayItem & { key: string; seq: number };

/** A turn streaming now (one per branch; `_` for the main line). */
export interface StreamingTurn {
  turnId: string;
  who: string;
  branch?: string;
  /** The state it answers in (`implement.impl_a.work`), from its start event. */
  path?: string;
  /** The seq of its start event. */
  seq: number;
  text: string;
  /** The tool it runs now. */
  tool?: string;
}

/** What the console shows of a session that comes from its events. */
export interface EventState {
  entries: Entry[];
  live: Record<string, StreamingTurn>;
  /** The last arbitration (its proposals with their scores). */
  decision: Decision | null;
  /** State warming's predicted next personas (top first), while one answers. */
  prediction: PredictedPersona[] | null;
  /** Approvals (ok) and reworks (back) of each persona's work. */
  marks: Record<string, { ok: number; back: number }>;
  /** Moves made: transitions between state keys, oldest first. */
  moves: { from: string; to: string }[];
  /** A command an agent waits to run (`!allow` / `!deny`). */
  asked: { command: string; who: string } | null;
  /** The last seq seen (streamed deltas carry none of their own). */
  lastSeq: number;
  ended: boolean;
  /** The team's routing mode (fsm or simple), as the events last said. */
  mode: string | null;
}

/** The state before any event. */
export const EMPTY: EventState = { entries: [], live: {}, decision: null, prediction: null, marks: {}, moves: [], asked: null, lastSeq: 0, ended: false, mode: null };

/** How many transcript entries are kept (the oldest go: the timeline and export have them all). */
export const MAX_ENTRIES = 3_000;

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * The turns that stream now: every turn begun and not finished while the server runs the session; when it runs
 * nowhere (its process stopped mid-turn), only those begun after the view was read (it was opened again since):
 * a turn the stored events begin and never finish is not answering.
 */
export function streamingNow(view: SessionViewJson, live: Readonly<Record<string, StreamingTurn>>): Readonly<Record<string, StreamingTurn>> {
  if (view.hosted) return live;
  const fresh = Object.entries(live).filter(([, t]) => t.seq > view.lastEventSeq);
  return fresh.length === Object.keys(live).length ? live : Object.fromEntries(fresh);
}

/**
 * The session as the console shows it now: its view as last read, followed by the turns streaming since (see streamingNow).
 * The stream is ahead of the view (read again at most every 250 ms): while a turn streams the session is running, waits for no one, and the turn's state is lit, however short the turn.
 */
export function followStream(view: SessionViewJson, live: Readonly<Record<string, StreamingTurn>>): SessionViewJson {
  if (view.status === 'ended' || Object.keys(live).length === 0) return view;
  const paths = Object.values(live).flatMap((t) => (t.path && !view.state.includes(t.path) ? [t.path] : []));
  // Turns stream from the server running the session: it is hosted, whatever the view read before said.
  return { ...view, status: 'running', statusText: 'running', hosted: true, awaiting: null, state: paths.length === 0 ? view.state : [...view.state, ...paths] };
}

/** Whether a session is at work now: running in the server. A stored session that says running is one whose process stopped mid-turn (interrupted): nothing runs it. */
export function atWork(view: SessionViewJson): boolean {
  return view.status === 'running' && view.hosted;
}

/**
 * The session list with the open session as the console shows it (its view followed by the stream): a persona answering is running in the
 * list too, in the server's word for a session running in it (its status), not one poll later. Other changes come with the list read again.
 */
export function followList(sessions: readonly ListItem[], shown: SessionViewJson | null): readonly ListItem[] {
  if (!shown || !atWork(shown)) return sessions;
  return sessions.map((s) => (s.id === shown.id && (s.status !== 'running' || !s.hosted) ? { ...s, status: 'running', statusText: 'running', hosted: true } : s));
}

/** Folds one event into the console's state (pure): its items go to the transcript, live turns follow the deltas. */
export function reduce(state: EventState, e: EventData): EventState {
  const branch = str(e.branch) || undefined;
  const key = branch ?? '_';
  let s = e.type === 'agent_delta' ? state : { ...state, lastSeq: Math.max(state.lastSeq, e.seq) };
  switch (e.type) {
    case 'agent_started': {
      const who = e.items?.[0]?.who ?? str(e.persona);
      const path = str(e.path) || undefined;
      s = { ...s, live: { ...s.live, [key]: { turnId: str(e.turn_id), who, ...(branch ? { branch } : {}), ...(path ? { path } : {}), seq: e.seq, text: '' } } };
      break;
    }
    case 'agent_delta': {
      const turn = s.live[key];
      const text = str(e.text);
      if (turn && text && turn.turnId === e.turn_id) s = { ...s, live: { ...s.live, [key]: { ...turn, text: turn.text + text } } };
      return s;
    }
    case 'tool_call': {
      const turn = s.live[key];
      if (turn) s = { ...s, live: { ...s.live, [key]: { ...turn, tool: e.phase === 'started' ? str(e.summary) : '' } } };
      break;
    }
    case 'agent_message':
    case 'agent_aborted': {
      const { [key]: _done, ...rest } = s.live;
      s = { ...s, live: rest };
      break;
    }
    case 'session_started':
    case 'mode_changed':
      s = { ...s, mode: str(e.mode) || s.mode };
      break;
    case 'arbitration':
      s = { ...s, decision: e.decision as Decision };
      break;
    case 'prediction':
      s = { ...s, prediction: (e.predictions as PredictedPersona[] | undefined) ?? null };
      break;
    case 'transition':
      s = { ...s, moves: [...s.moves, { from: str(e.from), to: str(e.to) }], prediction: null };
      break;
    case 'approval': {
      const of = str(e.of);
      const was = s.marks[of] ?? { ok: 0, back: 0 };
      s = { ...s, marks: { ...s.marks, [of]: e.status === 'APPROVED' ? { ...was, ok: was.ok + 1 } : { ...was, back: was.back + 1 } } };
      break;
    }
    case 'command_approval':
      s = { ...s, asked: e.phase === 'asked' ? { command: str(e.command), who: e.items?.[0]?.who ?? str(e.persona) } : null };
      break;
    case 'joined':
    case 'awaiting_user':
    case 'session_detached':
    case 'error':
      s = { ...s, live: {} };
      break;
    case 'session_ended':
      s = { ...s, live: {}, ended: true, asked: null };
      break;
  }
  const shown = (e.items ?? []).filter((item) => item.kind !== 'progress' && item.kind !== 'arbitration');
  if (shown.length === 0) return s;
  const added = shown.map((item, i) => ({ ...item, key: `${e.seq}.${i}`, seq: e.seq }) as Entry);
  const entries = s.entries.length + added.length > MAX_ENTRIES ? [...s.entries, ...added].slice(-MAX_ENTRIES) : [...s.entries, ...added];
  return { ...s, entries };
}
