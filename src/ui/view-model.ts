import type { Decision } from '../arbiter/proposal.js';
import type { TroupeEvent } from '../engine/event-map.js';
import type { Prediction } from '../warming/predict.js';
import { DISPLAY_START, displayStep, type DisplayItem, type DisplayNames, type DisplayState, type Tone } from '../report/display-items.js';

/** A finished transcript item; once in the log it never changes (it is rendered in `<Static>`). Its words come from the display items. */
export type LogItem = { id: string } & (
  | { kind: 'turn'; persona: string; where: string; turn: number; text: string; tag: string; status: 'ok' | 'invalid' }
  | { kind: 'user'; text: string; label: UserLabel }
  | { kind: 'transition'; text: string; reason: string | null }
  | { kind: 'note'; text: string; tone: Tone; mark?: string }
  | { kind: 'output'; title: string; lines: string[]; tone: 'info' | 'error' }
);

/** How a user line is labelled: the brief (a workflow's input), or what the user said since. */
export type UserLabel = 'Brief' | 'Input' | 'You';

/** The turn being streamed right now. */
export interface LiveTurn {
  turnId: string;
  persona: string;
  path: string;
  model: string;
  attempt: number;
  text: string;
  /** When the call started (epoch ms; the UI's own clock when it saw the call start, else the event's time). */
  startedAt: number;
  /** The tool it is running now (agents with tools). */
  tool?: string;
  /** Tokens its calls used so far. */
  tokens?: number;
  /** Who is likely to speak after it (state warming's latest prediction for this turn, best first). */
  predicted?: Prediction[];
}

/** Everything the UI shows that comes from events (the session itself is read from the runner). */
export interface ViewState {
  log: LogItem[];
  live: LiveTurn | null;
  /** The turns of a fan-out's branches streaming at once, by branch id. */
  branches: Record<string, LiveTurn>;
  /** A turn whose message arrived; it is logged once its directive is known. */
  held: { turnId: string; persona: string; where: string; turn: number; text: string } | null;
  arbitration: { from: string; decision: Decision } | null;
  /** Approvals (✓) and reworks (↺) of each persona's work, for the state tree. */
  marks: Record<string, { ok: number; back: number }>;
  /** What the display items need from earlier events. */
  display: DisplayState;
  seq: number;
  /** Bumped when printed items are let go of, so the printed log starts afresh (see `forgetPrinted`). */
  epoch: number;
}

/** The view before any event. */
export const EMPTY_VIEW: ViewState = { log: [], live: null, branches: {}, held: null, arbitration: null, marks: {}, display: DISPLAY_START, seq: 0, epoch: 0 };

/**
 * Lets go of the first `count` log items, which the terminal already shows for good (they are printed
 * once, above the live area): the UI keeps a bounded log however long the session runs.
 */
export function forgetPrinted(v: ViewState, count: number): ViewState {
  return count <= 0 ? v : { ...v, log: v.log.slice(count), epoch: v.epoch + 1 };
}

/** Appends a log item with a fresh id. */
export function pushLog(v: ViewState, item: LogItem extends infer T ? (T extends LogItem ? Omit<T, 'id'> : never) : never): ViewState {
  const seq = v.seq + 1;
  return { ...v, seq, log: [...v.log, { ...item, id: `i${seq}` } as LogItem] };
}

function flushHeld(v: ViewState, tag: string, status: 'ok' | 'invalid'): ViewState {
  const h = v.held;
  if (!h) return v;
  return pushLog({ ...v, held: null }, { kind: 'turn', persona: h.persona, where: h.where, turn: h.turn, text: h.text, tag, status });
}

const STOPS = new Set(['awaiting_user', 'session_detached', 'session_ended']);
// Events after which nothing streams any more (a failed turn leaves no "answering…").
const ENDS_LIVE = new Set(['awaiting_user', 'error', 'directive_invalid', 'session_detached', 'session_ended']);

/** How events are read: display names; a workflow's turns carry no directive (they are logged as they arrive). */
export type ReadOptions = DisplayNames;

const plain = (name: (id: string) => string): ReadOptions => ({ name, path: (key) => key, workflow: false, title: '' });

/**
 * Folds one bus event into the view (pure): its display items go to the log (the same items the CLI prints and
 * the live page shows), and the live turn, branches, approval marks and last arbitration follow the event.
 */
export function reduceEvent(view: ViewState, e: TroupeEvent, names: ((id: string) => string) | ReadOptions = (id) => id, seenAt: number = e.at): ViewState {
  const read = typeof names === 'function' ? plain(names) : names;
  let v = view;
  if (v.held && !(e.type === 'directive' && e.turn_id === v.held.turnId)) v = flushHeld(v, 'no valid directive', 'invalid');
  const step = displayStep(v.display, e, read);
  v = follow({ ...v, display: step.state }, e, seenAt);
  for (const item of step.items) v = logItem(v, item, read);
  // Whatever streamed is over once the session waits, pauses or ends.
  return STOPS.has(e.type) && Object.keys(v.branches).length > 0 ? { ...v, branches: {} } : v;
}

/** Logs one display item: a team's turn waits for its directive (its tag); the live UI leaves out the header and progress lines. */
function logItem(v: ViewState, item: DisplayItem, read: ReadOptions): ViewState {
  switch (item.kind) {
    case 'header':
    case 'progress':
    case 'arbitration':
      return v;
    case 'turn': {
      const turn = { turnId: item.turnId, persona: item.persona ?? '', where: item.where, turn: item.turn, text: item.text };
      if (read.workflow) return pushLog(v, { ...turn, kind: 'turn', tag: item.branch ? `[${item.branch}]` : '', status: 'ok' });
      return { ...v, held: turn };
    }
    case 'directive':
      return flushHeld(v, item.text, 'ok');
    case 'user':
      return pushLog(v, { kind: 'user', text: item.text, label: item.brief ? (read.workflow ? 'Input' : 'Brief') : 'You' });
    case 'command':
      return pushLog(v, { kind: 'user', text: item.text, label: 'You' });
    case 'transition':
      return pushLog(v, { kind: 'transition', text: item.text, reason: item.reason });
    case 'output':
      return pushLog(v, { kind: 'output', title: item.title, lines: item.lines, tone: 'info' });
    case 'note':
      return pushLog(v, { kind: 'note', text: item.text, tone: item.tone, ...(item.mark ? { mark: item.mark } : {}) });
  }
}

/** The view without a branch's live turn. */
function withoutBranch(v: ViewState, id: string | undefined): ViewState {
  if (id === undefined || !(id in v.branches)) return v;
  const { [id]: _gone, ...rest } = v.branches;
  return { ...v, branches: rest };
}

/** What an event changes besides the log: the live turn and branches, marks, the last arbitration. */
function follow(v: ViewState, e: TroupeEvent, seenAt: number): ViewState {
  const id = 'branch' in e ? e.branch : undefined;
  const next = followEvent(v, e, id, seenAt);
  return ENDS_LIVE.has(e.type) ? { ...next, live: null } : next;
}

function followEvent(v: ViewState, e: TroupeEvent, id: string | undefined, seenAt: number): ViewState {
  switch (e.type) {
    case 'agent_started': {
      const live: LiveTurn = { turnId: e.turn_id, persona: e.persona, path: e.path, model: e.model, attempt: e.attempt, text: '', startedAt: seenAt };
      return id === undefined ? { ...v, live } : { ...v, branches: { ...v.branches, [id]: { ...live, tokens: 0 } } };
    }
    case 'agent_delta': {
      if (!e.text) return v;
      const b = id !== undefined ? v.branches[id] : undefined;
      if (b) return b.turnId === e.turn_id ? { ...v, branches: { ...v.branches, [id!]: { ...b, text: b.text + e.text } } } : v;
      return v.live && v.live.turnId === e.turn_id ? { ...v, live: { ...v.live, text: v.live.text + e.text } } : v;
    }
    case 'prediction':
      return v.live && v.live.turnId === e.turn_id ? { ...v, live: { ...v.live, predicted: e.predictions } } : v;
    case 'usage': {
      // A branch's live line counts the tokens of its own calls (the totals are the meter's).
      const at = Object.entries(v.branches).find(([, b]) => b.persona === e.persona);
      return at ? { ...v, branches: { ...v.branches, [at[0]]: { ...at[1], tokens: (at[1].tokens ?? 0) + e.prompt_tokens + e.completion_tokens } } } : v;
    }
    case 'agent_aborted':
    case 'agent_message':
      return { ...withoutBranch(v, id), live: v.live?.turnId === e.turn_id ? null : v.live };
    case 'joined':
      return { ...v, branches: {} };
    case 'tool_call': {
      const tool = e.phase === 'started' ? e.summary : '';
      const b = id !== undefined ? v.branches[id] : undefined;
      const live = v.live && v.live.turnId === e.turn_id ? { ...v, live: { ...v.live, tool } } : v;
      return b && b.turnId === e.turn_id ? { ...live, branches: { ...v.branches, [id!]: { ...b, tool } } } : live;
    }
    case 'arbitration':
      return { ...v, arbitration: { from: e.from, decision: e.decision } };
    case 'approval': {
      const was = v.marks[e.of] ?? { ok: 0, back: 0 };
      return { ...v, marks: { ...v.marks, [e.of]: e.status === 'APPROVED' ? { ...was, ok: was.ok + 1 } : { ...was, back: was.back + 1 } } };
    }
    default:
      return v;
  }
}
