import type { Decision } from '../arbiter/proposal.js';
import { directiveTag } from '../report/decisions.js';
import type { TroupeEvent } from '../engine/event-map.js';
import { addUsage, NO_USAGE, type UsageTotals } from '../commands/usage-meter.js';

/** A finished transcript item; once in the log it never changes (it is rendered in `<Static>`). */
export type LogItem = { id: string } & (
  | { kind: 'turn'; persona: string; path: string; turn: number; text: string; tag: string; status: 'ok' | 'invalid' }
  | { kind: 'user'; text: string; first: boolean }
  | { kind: 'transition'; from: string; to: string; label: string; reason: string | null }
  | { kind: 'note'; text: string; tone: 'info' | 'warn' | 'error' | 'ok' }
  | { kind: 'output'; title: string; lines: string[]; tone: 'info' | 'error' }
);

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
}

/** Everything the UI shows that comes from events (the session itself is read from the runner). */
export interface ViewState {
  log: LogItem[];
  live: LiveTurn | null;
  /** The turns of a fan-out's branches streaming at once, by branch id. */
  branches: Record<string, LiveTurn>;
  /** A turn whose message arrived; it is logged once its directive is known. */
  held: { turnId: string; persona: string; path: string; turn: number; text: string } | null;
  arbitration: { from: string; decision: Decision } | null;
  usage: UsageTotals;
  compressions: number;
  /** Approvals (✓) and reworks (↺) of each persona's work, for the state tree. */
  marks: Record<string, { ok: number; back: number }>;
  /** The last directive's transition, by the state that gave it. */
  lastDirective: Record<string, string>;
  seq: number;
  /** Bumped when printed items are let go of, so the printed log starts afresh (see `forgetPrinted`). */
  epoch: number;
}

/** The view before any event. */
export const EMPTY_VIEW: ViewState = { log: [], live: null, branches: {}, held: null, arbitration: null, usage: NO_USAGE, compressions: 0, marks: {}, lastDirective: {}, seq: 0, epoch: 0 };

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
  return pushLog({ ...v, held: null }, { kind: 'turn', persona: h.persona, path: h.path, turn: h.turn, text: h.text, tag, status });
}

const STOPS = new Set(['awaiting_user', 'session_detached', 'session_ended']);

/** How events are read: display names, and whether turns end with a directive (teams) or not (workflows). */
export interface ReadOptions {
  name: (id: string) => string;
  /** Workflow turns carry no directive: they are logged as soon as they arrive. */
  directives: boolean;
}

/** Folds one bus event into the view (pure). */
export function reduceEvent(view: ViewState, e: TroupeEvent, name: ((id: string) => string) | ReadOptions = (id) => id, seenAt: number = e.at): ViewState {
  const read: ReadOptions = typeof name === 'function' ? { name, directives: true } : name;
  let v = view;
  if (v.held && !(e.type === 'directive' && e.turn_id === v.held.turnId)) v = flushHeld(v, 'no valid directive', 'invalid');
  if (!read.directives) {
    const shown = reduceWorkflowEvent(v, e, read.name, seenAt);
    if (shown) return shown;
  }
  const next = reduceTeamEvent(v, e, read.name, seenAt);
  // Whatever streamed is over once the session waits, pauses or ends.
  return STOPS.has(e.type) && Object.keys(next.branches).length > 0 ? { ...next, branches: {} } : next;
}

/** Events only workflows have (branches, tools, debates), and turns that carry no directive. */
/** The view without a branch's live turn. */
function withoutBranch(v: ViewState, id: string | undefined): ViewState {
  if (id === undefined || !(id in v.branches)) return v;
  const { [id]: _gone, ...rest } = v.branches;
  return { ...v, branches: rest };
}

function reduceWorkflowEvent(v: ViewState, e: TroupeEvent, name: (id: string) => string, seenAt: number): ViewState | null {
  const branch = 'branch' in e && e.branch ? ` [${e.branch}]` : '';
  const id = 'branch' in e ? e.branch : undefined;
  switch (e.type) {
    case 'agent_started':
      if (id === undefined) return null;
      return { ...v, branches: { ...v.branches, [id]: { turnId: e.turn_id, persona: e.persona, path: e.path, model: e.model, attempt: e.attempt, text: '', startedAt: seenAt, tokens: 0 } } };
    case 'agent_delta': {
      const b = id !== undefined ? v.branches[id] : undefined;
      if (!b || b.turnId !== e.turn_id || !e.text) return id !== undefined ? v : null;
      return { ...v, branches: { ...v.branches, [id!]: { ...b, text: b.text + e.text } } };
    }
    case 'usage': {
      const at = Object.entries(v.branches).find(([, b]) => b.persona === e.persona);
      const counted = { ...v, usage: addUsage(v.usage, e) };
      return at ? { ...counted, branches: { ...v.branches, [at[0]]: { ...at[1], tokens: (at[1].tokens ?? 0) + e.prompt_tokens + e.completion_tokens } } } : counted;
    }
    case 'agent_aborted':
      return id !== undefined ? pushLog(withoutBranch(v, id), { kind: 'note', text: `${name(e.persona)}${branch} was stopped: ${e.reason}`, tone: 'warn' }) : null;
    case 'agent_message': {
      const live = v.live?.turnId === e.turn_id ? null : v.live;
      return pushLog({ ...withoutBranch(v, id), live }, { kind: 'turn', persona: e.persona, path: e.path, turn: e.turn, text: e.text, tag: branch.trim(), status: 'ok' });
    }
    case 'fanout':
      return pushLog(v, { kind: 'note', text: `⇉ ${e.state}: ${e.branches.length} branches at once (${e.branches.join(', ')}), join ${e.join}`, tone: 'info' });
    case 'joined':
      return pushLog({ ...v, branches: {} }, { kind: 'note', text: `⇇ ${e.state} joined: ${e.done.length} done${e.failed.length ? `; failed ${e.failed.map((f) => `${f.branch} (${f.error})`).join(', ')}` : ''}`, tone: e.outcome === 'continue' ? 'ok' : 'error' });
    case 'tool_call': {
      const b = id !== undefined ? v.branches[id] : undefined;
      const live = v.live && v.live.turnId === e.turn_id ? { ...v, live: { ...v.live, tool: e.phase === 'started' ? e.summary : '' } } : v;
      const marked = b && b.turnId === e.turn_id ? { ...live, branches: { ...v.branches, [id!]: { ...b, tool: e.phase === 'started' ? e.summary : '' } } } : live;
      return e.phase === 'finished' ? pushLog(marked, { kind: 'note', text: `${e.ok ? '⚙' : '✗'} ${name(e.persona)}${branch} ${e.tool}: ${e.summary}${e.ok || !e.detail ? '' : ` — ${e.detail}`}`, tone: e.ok ? 'info' : 'warn' }) : marked;
    }
    case 'command_approval':
      return pushLog(v, e.phase === 'asked'
        ? { kind: 'note', text: `⚠ ${name(e.persona)}${branch} wants to run: ${e.command} (in ${e.cwd}) — !allow or !deny`, tone: 'warn' }
        : { kind: 'note', text: `${e.phase === 'allowed' ? '✓ allowed' : '✗ denied'}: ${e.command}`, tone: e.phase === 'allowed' ? 'ok' : 'info' });
    case 'verdict':
      return pushLog(v, { kind: 'note', text: `⚖ ${name(e.reviewer)} (round ${e.round}): ${e.agree ? 'agrees' : 'does not agree'}, ${e.approve ? 'approves' : 'wants changes'} — ${e.feedback}`, tone: e.agree ? 'ok' : 'warn' });
    case 'debate_ended':
      return pushLog(v, { kind: 'note', text: `⚖ debate over after ${e.rounds} round(s): ${e.consensus ? 'consensus' : 'no consensus, synthesised'}; ${e.approve ? 'approved' : 'changes requested'}`, tone: e.approve ? 'ok' : 'warn' });
    case 'session_ended': {
      const ended = reduceTeamEvent(v, e, name, e.at);
      if (e.output === undefined) return ended;
      const text = typeof e.output === 'string' ? e.output : JSON.stringify(e.output, null, 2);
      return pushLog(ended, { kind: 'output', title: 'workflow output', lines: (text ?? 'null').split('\n'), tone: 'info' });
    }
    default:
      return null;
  }
}

function reduceTeamEvent(v: ViewState, e: TroupeEvent, name: (id: string) => string, seenAt: number): ViewState {
  switch (e.type) {
    case 'user_input':
      return pushLog(v, { kind: 'user', text: e.text, first: !v.log.some((i) => i.kind === 'user') });
    case 'agent_started':
      return { ...v, live: { turnId: e.turn_id, persona: e.persona, path: e.path, model: e.model, attempt: e.attempt, text: '', startedAt: seenAt } };
    case 'agent_delta':
      if (!v.live || v.live.turnId !== e.turn_id || !e.text) return v;
      return { ...v, live: { ...v.live, text: v.live.text + e.text } };
    case 'agent_aborted': {
      const live = v.live?.turnId === e.turn_id ? null : v.live;
      return pushLog({ ...v, live }, { kind: 'note', text: `${name(e.persona)}'s answer was cut off: ${e.reason}`, tone: 'warn' });
    }
    case 'agent_message':
      return { ...v, live: v.live?.turnId === e.turn_id ? null : v.live, held: { turnId: e.turn_id, persona: e.persona, path: e.path, turn: e.turn, text: e.text } };
    case 'directive': {
      const tag = directiveTag(e.directive);
      const next = { ...v, lastDirective: { ...v.lastDirective, [e.path]: e.directive.transition } };
      const flushed = flushHeld(next, tag, 'ok');
      const decisions = e.directive.key_decisions ?? [];
      return decisions.reduce((acc, k) => pushLog(acc, { kind: 'note', text: `decision pinned: ${k}`, tone: 'ok' }), flushed);
    }
    case 'directive_invalid':
      return pushLog({ ...v, live: null }, { kind: 'note', text: `${name(e.persona)} gave no valid directive: ${e.error}${e.repairing ? ' (asking once more)' : ''}`, tone: 'warn' });
    case 'arbitration':
      return { ...v, arbitration: { from: e.from, decision: e.decision } };
    case 'transition': {
      const label = e.kind === 'agent' ? (v.lastDirective[e.from] ?? 'handoff') : e.kind.toUpperCase();
      return pushLog(v, { kind: 'transition', from: e.from, to: e.to, label, reason: e.kind === 'agent' ? null : e.reason });
    }
    case 'approval': {
      const was = v.marks[e.of] ?? { ok: 0, back: 0 };
      const marked = { ...v, marks: { ...v.marks, [e.of]: e.status === 'APPROVED' ? { ...was, ok: was.ok + 1 } : { ...was, back: was.back + 1 } } };
      if (e.by !== 'user') return marked;
      return pushLog(marked, { kind: 'note', text: `${e.status === 'APPROVED' ? 'you approved' : 'you sent back'} ${name(e.of)}'s work${e.reason ? `: ${e.reason}` : ''}`, tone: e.status === 'APPROVED' ? 'ok' : 'warn' });
    }
    case 'awaiting_user':
      // Whatever was streaming is over: the session waits now (a failed turn leaves no "answering…").
      return pushLog({ ...v, live: null }, { kind: 'note', text: `waiting for you: ${e.reason}`, tone: 'warn' });
    case 'note':
      return pushLog(v, { kind: 'note', text: e.text, tone: 'info' });
    case 'retry':
      return pushLog(v, { kind: 'note', text: `↻ retry ${e.attempt} in ${(e.wait_ms / 1000).toFixed(1)} s: ${e.reason}`, tone: 'warn' });
    case 'error':
      return pushLog({ ...v, live: null }, { kind: 'note', text: `error: ${e.message} (${e.where})`, tone: 'error' });
    case 'mode_changed':
      return pushLog(v, { kind: 'note', text: `mode is now ${e.mode.toUpperCase()}`, tone: 'ok' });
    case 'usage':
      return { ...v, usage: addUsage(v.usage, e) };
    case 'memory_compressed':
      return { ...v, compressions: v.compressions + 1 };
    case 'session_detached':
      return pushLog({ ...v, live: null }, { kind: 'note', text: `session paused: ${e.reason.replace(/_/g, ' ')}${e.detail ? ` — ${e.detail}` : ''}`, tone: 'info' });
    case 'session_ended':
      return pushLog({ ...v, live: null }, { kind: 'note', text: `session ended: ${e.reason}${e.detail ? ` — ${e.detail}` : ''}`, tone: 'info' });
    default:
      return v;
  }
}
