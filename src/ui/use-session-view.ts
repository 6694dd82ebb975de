import { useEffect, useReducer } from 'react';
import type { TroupeEvent } from '../engine/event-map.js';
import type { SessionState } from '../engine/session.js';
import { displayName } from '../report/names.js';
import type { TroupeSession } from '../session/troupe-session.js';
import { EMPTY_VIEW, forgetPrinted, pushLog, reduceEvent, type LogItem, type ReadOptions, type ViewState } from './view-model.js';

/** How this session's events are read: its display names; directives only for teams. */
function readOptions(r: TroupeSession): ReadOptions {
  return { name: (id: string) => displayName(r.def, id), directives: r.def.kind === 'team' };
}

/** The view plus the session as it stood after the last event. */
export interface SessionView {
  view: ViewState;
  session: SessionState;
}

type Seen = { e: TroupeEvent; seenAt: number };

type Action =
  | { type: 'events'; events: Seen[]; session: SessionState; read: ReadOptions }
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
  if (action.type === 'log') return { view: pushLog(state.view, action.item), session: action.session };
  return { view: action.events.reduce((v, x) => reduceEvent(v, x.e, action.read, x.seenAt), state.view), session: action.session };
}

/**
 * Subscribes to the runner's bus and folds every event into the view, starting from `history` (the
 * stored event log of a resumed session); `onReady` runs once subscribed; `addOutput` logs command output.
 */
export function useSessionView(
  running: TroupeSession,
  history: readonly TroupeEvent[] = [],
  onReady?: () => void,
): SessionView & { addOutput: (title: string, lines: string[], tone: 'info' | 'error') => void } {
  const [state, dispatch] = useReducer(reducer, running, (r) => {
    const read = readOptions(r);
    return { view: history.reduce((v, e) => reduceEvent(v, e, read), EMPTY_VIEW), session: r.getSnapshot() };
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
      dispatch({ type: 'events', events: batch, session, read });
    };
    const unsubscribe = running.subscribe((e: TroupeEvent, after) => {
      events.push({ e, seenAt: Date.now() });
      session = after;
      if (e.type !== 'agent_delta') flush();
      else frame ??= setTimeout(flush, FRAME_MS);
    });
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
  const addOutput = (title: string, lines: string[], tone: 'info' | 'error') =>
    dispatch({ type: 'log', item: { kind: 'output', title, lines, tone }, session: running.getSnapshot() });
  return { ...state, addOutput };
}
