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

type Action =
  | { type: 'event'; e: TroupeEvent; session: SessionState; read: ReadOptions; seenAt: number }
  | { type: 'log'; item: Omit<Extract<LogItem, { kind: 'output' }>, 'id'>; session: SessionState }
  | { type: 'printed'; count: number };

/** Past this many printed items the UI lets them go (they stay on the terminal). */
export const LOG_WINDOW = 200;

function reducer(state: SessionView, action: Action): SessionView {
  if (action.type === 'printed') return { ...state, view: forgetPrinted(state.view, action.count) };
  if (action.type === 'log') return { view: pushLog(state.view, action.item), session: action.session };
  return { view: reduceEvent(state.view, action.e, action.read, action.seenAt), session: action.session };
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
    const unsubscribe = running.subscribe((e: TroupeEvent, session) => dispatch({ type: 'event', e, session, read, seenAt: Date.now() }));
    onReady?.();
    return unsubscribe;
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
