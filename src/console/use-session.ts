import { useEffect, useRef, useState } from 'preact/hooks';
import { api, streamUrl } from './api.js';
import { batcher } from './event-batch.js';
import { parseShown } from './shown-text.js';
import { EMPTY, reduce, type EventState } from './session-state.js';
import type { EventData, SessionViewJson } from './types.js';

/** Where the console's link to the server stands: live, reconnecting after the server went away, or over (the stream was ended by the server). */
export type Connection = 'connecting' | 'live' | 'gone' | 'over';

/** Parses an SSE message's data; null for anything that is not an event (never throws: a dropped connection fires no data). */
function parse(data: unknown): EventData | null {
  if (typeof data !== 'string' || data === '') return null;
  try {
    const value = parseShown(data) as EventData;
    return value && typeof value === 'object' && typeof value.type === 'string' ? value : null;
  } catch {
    return null;
  }
}

/**
 * A session as the console follows it: its events folded as they stream (every SSE name the server sends),
 * its view read again (at most every 250 ms) when an event changes it, and the state of the connection.
 */
export function useSession(id: string | null, names: readonly string[]): { events: EventState; view: SessionViewJson | null; connection: Connection; reload: () => void } {
  const [events, setEvents] = useState<EventState>(EMPTY);
  const [view, setView] = useState<SessionViewJson | null>(null);
  const [connection, setConnection] = useState<Connection>('connecting');
  const timer = useRef<number | null>(null);
  const current = useRef(id);
  current.current = id;
  const ended = useRef(false);

  const reload = () => {
    if (timer.current !== null) return;
    timer.current = window.setTimeout(() => {
      timer.current = null;
      const wanted = current.current;
      if (wanted)
        api<SessionViewJson>(`/sessions/${encodeURIComponent(wanted)}`).then(
          (v) => current.current === wanted && setView(v),
          () => undefined,
        );
    }, 250);
  };

  useEffect(() => {
    setEvents(EMPTY);
    setView(null);
    ended.current = false;
    if (!id || names.length === 0) return;
    setConnection('connecting');
    reload();
    const source = new EventSource(streamUrl(id));
    // Each SSE message is a task of its own: folded one by one, a replay of thousands of events rendered thousands of times (a minute for 6,000).
    const events = batcher<EventData>(
      (batch) => setEvents((s) => batch.reduce(reduce, s)),
      (flush) => window.setTimeout(flush, 0),
    );
    const onEvent = (m: MessageEvent) => {
      const e = parse(m.data);
      if (!e) return;
      if (e.type === 'session_ended') ended.current = true;
      events.push(e);
      if (e.type !== 'agent_delta') reload();
    };
    for (const name of names) source.addEventListener(name, onEvent as EventListener);
    source.onopen = () => {
      setConnection('live');
      reload();
    };
    // The browser reconnects on its own (the stream's retry: field); CLOSED means the server ended the stream (204: nothing more will come).
    // After session_ended the server ends the stream: nothing more will come, so the console does not reconnect.
    source.onerror = () => {
      if (ended.current) source.close();
      setConnection(ended.current || source.readyState === EventSource.CLOSED ? 'over' : 'gone');
    };
    return () => {
      source.close();
      events.drop();
    };
  }, [id, names.length]);

  return { events, view, connection, reload };
}
