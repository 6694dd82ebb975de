import { useEffect, useReducer } from 'react';
import type { TroupeEvent } from '../engine/event-map.js';
import type { SessionState } from '../engine/session.js';
import { displayNames } from '../report/display-items.js';
import type { TroupeSession } from '../session/troupe-session.js';
import type { SessionUsage } from '../usage/session-usage.js';
import { EMPTY_VIEW, forgetPrinted, pushLog, reduceEvent, type LogItem, type ReadOptions, type ViewState } from './view-model.js';

/** How this session's events are read: its display names (a workflow's turns carry no directive). */
function readOptions(r: TroupeSession): ReadOptions {
  return displayNames(r.def);
}

/** The view plus the session and its usage (the meter's totals) as they stood after the last event. */
export interface SessionView {
  view: ViewState;
  session: SessionState;
  usage: SessionUsage;
}

type Seen = { e: TroupeEvent; seenAt: number };

type Action =
  | { type: 'events'; events: Seen[]; session: SessionState; usage: SessionUsage; read: ReadOptions }
  | { type: 'log'; item: Omit<Extract<LogItem, { kind: 'output' }>, 'id'>; session: SessionState }
  | { type: 'printed'; count: number };

/** Past this many printed items the UI lets them go (they stay on the terminal). */
export const LOG_WINDOW = 200;

// Streamed words that arrive within one frame are folded into the view together: an answer streams dozens
// of deltas a second, and a render per delta (layout, wrapping, the whole screen's text) is most of the
// UI's CPU and garbage. Any other event is shown at once (with the words before it).
const FRAME_MS = 16;

function reducer(state: SessionView, action: Action): SessionView {
  if (action.type === 'printed') return { ...state, view: forgetPrinted(state.view, action.count) };
  if (action.type === 'log') return { ...state, view: pushLog(state.view, action.item), session: action.session };
  return { view: action.events.reduce((v, x) => reduceEvent(v, x.e, action.read, x.seenAt), state.view), session: action.session, usage: action.usage };
}

/**
 * Subscribes to the runner's bus and folds every event into the view, starting from `history` (the
 * stored event log of a resumed session); usage is the session's meter, read with each batch of events (a
 * resumed session's totals include every call before it); `onReady` runs once subscribed; `addOutput` logs command output.
 */
export function useSessionView(
  running: TroupeSession,
  history: readonly TroupeEvent[] = [],
  onReady?: () => void,
): SessionView & { addOutput: (title: string, lines: string[], tone: 'info' | 'error') => void } {
  const [state, dispatch] = useReducer(reducer, running, (r) => {
    const read = readOptions(r);
    return { view: history.reduce((v, e) => reduceEvent(v, e, read), EMPTY_VIEW), session: r.getSnapshot(), usage: r.usage() };
  });
  useEffect(() => {
    const read = readOptions(running);
    let events: Seen[] = [];
    let session = running.getSnapshot();
    let frame: NodeJS.Timeout | null = null;
    const flush = () => {
      if (frame) clearTimeout(frame);
      frame = null;
      const batch = events;
      events = [];
      // The meter counts a call before its `usage` event goes out: read now, the totals include it.
      dispatch({ type: 'events', events: batch, session, usage: running.usage(), read });
    };
    const unsubscribe = running.subscribe((e: TroupeEvent, after) => {
      events.push({ e, seenAt: Date.now() });
      session = after;
      if (e.type !== 'agent_delta') flush();
      else frame ??= setTimeout(flush, FRAME_MS);
    });
    // A session can start before the UI listens (`/workflow` opens it with its input): what it did until now is
    // shown first (its input, the turn that started), from its recent events past the history already folded.
    const folded = history.at(-1)?.seq ?? 0;
    const missed = running.recent().filter((e) => e.seq > folded && e.type !== 'agent_delta');
    if (missed.length > 0) {
      events = missed.map((e) => ({ e, seenAt: e.at }));
      flush();
    }
    onReady?.();
    return () => {
      unsubscribe();
      if (frame) clearTimeout(frame);
    };
  }, [running]);
  // Runs after the render that printed the log (Static prints in a layout effect, before this effect).
  const printed = state.view.log.length;
  useEffect(() => {
    if (printed > LOG_WINDOW) dispatch({ type: 'printed', count: printed });
  }, [printed]);
  const addOutput = (title: string, lines: string[], tone: 'info' | 'error') => dispatch({ type: 'log', item: { kind: 'output', title, lines, tone }, session: running.getSnapshot() });
  return { ...state, addOutput };
}
