// The floor `troupe serve` is measured against: a minimal Hono server with the same routes (create a session,
// its events over SSE with Last-Event-ID, /healthz) whose sessions replay troupe's own events, recorded from a
// real session, on the same model timer. No engine, no store, no redaction: what any server must do to stream
// these events (serialise each once, write it to its readers), and nothing else.
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';

/** One recorded event: its plain data (envelope included) and its display items, as troupe's SSE carries them. */
export interface FloorEvent {
  event: Record<string, unknown> & { type: string };
  items: unknown[];
}

/**
 * A recorded session: `start` is what it publishes before its first model call; each turn is one model call
 * (its turn id) and what the session publishes between its answer and the next call.
 */
export interface FloorScript {
  start: FloorEvent[];
  turns: { turnId: string; events: FloorEvent[] }[];
}

interface Message {
  seq: number;
  live: boolean;
  event: string;
  data: string;
}

interface FloorSession {
  id: string;
  brief: string;
  log: Message[];
  readers: Set<(m: Message) => void>;
  seq: number;
  over: boolean;
}

/** The floor server: sessions replay `script` turn by turn, each turn `latencyMs` after the last; `answered` is told when each turn's answer "leaves the model". */
export function floorServer(script: FloorScript, options: { latencyMs: number; answered: (brief: string, turnId: string) => void }): { fetch: Hono['fetch']; stop: () => void } {
  const sessions = new Map<string, FloorSession>();
  const timers = new Set<NodeJS.Timeout>();

  const publish = (s: FloorSession, events: FloorEvent[]) => {
    for (const { event, items } of events) {
      const live = event.type === 'agent_delta';
      if (!live) s.seq += 1;
      const m: Message = { seq: s.seq, live, event: event.type, data: JSON.stringify({ ...event, session_id: s.id, seq: s.seq, at: new Date().toISOString(), items }) };
      if (!live) s.log.push(m);
      for (const reader of s.readers) reader(m);
    }
  };
  const play = (s: FloorSession, turn: number) => {
    const next = script.turns[turn];
    if (!next) {
      s.over = true;
      for (const reader of s.readers) reader({ seq: s.seq, live: true, event: '', data: '' });
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      options.answered(s.brief, next.turnId);
      publish(s, next.events);
      play(s, turn + 1);
    }, options.latencyMs);
    timers.add(timer);
  };

  const app = new Hono();
  app.get('/healthz', (c) => c.json({ ok: true, sessions: sessions.size }));
  app.post('/v1/sessions', async (c) => {
    const { brief } = (await c.req.json()) as { brief: string };
    const s: FloorSession = { id: randomUUID(), brief, log: [], readers: new Set(), seq: 0, over: false };
    sessions.set(s.id, s);
    publish(s, script.start);
    play(s, 0);
    return c.json({ id: s.id, status: 'running' }, 201);
  });
  app.get('/v1/sessions/:id/events', (c) => {
    const s = sessions.get(c.req.param('id'));
    if (!s) return c.json({ error: 'no session' }, 404);
    const after = Number(c.req.header('Last-Event-ID') ?? c.req.query('after') ?? 0) || 0;
    return streamSSE(c, async (stream) => {
      const queue: Message[] = [];
      let wake: (() => void) | null = null;
      const reader = (m: Message) => {
        queue.push(m);
        wake?.();
      };
      s.readers.add(reader);
      stream.onAbort(() => reader({ seq: 0, live: true, event: '', data: '' }));
      try {
        let sent = after;
        const send = async (m: Message) => {
          if (!m.live && m.seq <= sent) return;
          await stream.writeSSE({ event: m.event, data: m.data, ...(m.live ? {} : { id: String(m.seq) }) });
          if (!m.live) sent = m.seq;
        };
        for (const m of s.log) await send(m);
        if (s.over) return;
        for (;;) {
          while (queue.length === 0) await new Promise<void>((r) => (wake = r));
          wake = null;
          for (const m of queue.splice(0)) {
            if (m.event === '') return;
            await send(m);
          }
        }
      } finally {
        s.readers.delete(reader);
      }
    });
  });
  return { fetch: app.fetch, stop: () => timers.forEach((t) => clearTimeout(t)) };
}
