import { describe, expect, it, vi } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { redactorFrom, type Redactor } from '../../src/llm/redact.js';
import { isLiveOnly } from '../../src/kernel/session-kernel.js';
import { DELTA_BATCH_MS, EventFeed, FEED_RECENT } from '../../src/serve/event-feed.js';
import { SseClient } from '../../src/serve/sse-client.js';
import { sseFrame } from '../../src/serve/sse-frame.js';
import { DISPLAY_START, displayNames } from '../../src/report/display-items.js';
import type { TroupeSession } from '../../src/session/troupe-session.js';
import { studio } from '../helpers/team.js';

const SECRET = 'troupe-SENTINEL-key-7f3a9c1e5b';

/** A session as the feed sees it: its definition, the events it keeps, and a bus to publish on. */
function fakeSession(recent: TroupeEvent[] = []) {
  const listeners: ((e: TroupeEvent) => void)[] = [];
  let seq = recent.at(-1)?.seq ?? 0;
  const session = {
    def: studio().def,
    recent: () => recent,
    subscribe: (l: (e: TroupeEvent) => void) => (listeners.push(l), () => listeners.splice(listeners.indexOf(l), 1)),
  } as unknown as TroupeSession;
  const publish = (e: Record<string, unknown> & { type: string }) => {
    const live = isLiveOnly(e.type);
    if (!live) seq += 1;
    const stamped = { ...e, session_id: 's', seq, at: 0 } as unknown as TroupeEvent;
    if (!live) recent.push(stamped);
    for (const l of listeners) l(stamped);
    return stamped;
  };
  return { session, publish };
}

/** The process redactor's rules, with the given env, counting how often its screen searches a text. */
function countingRedactor(): { redactor: Redactor; screened: () => number } {
  const base = redactorFrom({ OPENAI_API_KEY: SECRET });
  let count = 0;
  const screen = new (class extends RegExp {
    override test(text: string): boolean {
      count++;
      return super.test(text);
    }
  })(base.screen!.source, base.screen!.flags);
  return { redactor: Object.assign((t: string) => base(t), { screen }), screened: () => count };
}

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
/** Readers are written a slice at a time, after the current task: until every slice is out. */
const written = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};

/** A reader whose connection always keeps up, recording each write. */
function reader(after = 0): { client: SseClient; writes: Uint8Array[] } {
  const writes: Uint8Array[] = [];
  const client = new SseClient(after);
  client.start({ write: (b) => (writes.push(b), true), onDrain: () => undefined, end: () => undefined }, [], 60_000);
  return { client, writes };
}

/** A feed following `session` from now on. */
function followed(session: TroupeSession, redactor: Redactor): EventFeed {
  const feed = new EventFeed(undefined, redactor);
  feed.follow(session);
  return feed;
}

/**
 * Runs `body` with a feed following a fake session and one reader attached, the batch's timer a fake one (the
 * readers' writes still run on real turns of the event loop): a loaded machine cannot make the batch come due
 * before the test looks.
 */
async function withBatchTimer(body: (f: ReturnType<typeof fakeSession> & { r: ReturnType<typeof reader> }) => Promise<void>): Promise<void> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  try {
    const fake = fakeSession();
    const feed = followed(fake.session, countingRedactor().redactor);
    const r = reader();
    feed.attach(r.client, 0);
    await body({ ...fake, r });
  } finally {
    vi.useRealTimers();
  }
}

describe('the SSE feed of a hosted session', () => {
  it('sends streamed words in batches: those of one burst, or of DELTA_BATCH_MS, as one write', async () => {
    await withBatchTimer(async ({ publish, r }) => {
      for (let i = 0; i < 5; i++) publish({ type: 'agent_delta', turn_id: 't1', persona: 'ceo', text: `w${i} ` });
      await written();
      expect(r.writes).toHaveLength(0);
      vi.advanceTimersByTime(DELTA_BATCH_MS - 1);
      await written();
      expect(r.writes).toHaveLength(0);
      vi.advanceTimersByTime(1);
      await written();
      expect(r.writes).toHaveLength(1);
      expect(text(r.writes[0]!).match(/event: agent_delta/g)).toHaveLength(5);
    });
  });

  it('a prediction among streamed words goes out with their batch, in its place, not as a write of its own', async () => {
    await withBatchTimer(async ({ session, publish, r }) => {
      const word = (text: string) => publish({ type: 'agent_delta', turn_id: 't1', persona: 'ceo', text });
      word('w1 ');
      const prediction = publish({ type: 'prediction', turn_id: 't1', persona: 'ceo', on: 'inbox', predictions: [{ persona: 'game_designer', history: 3 }] });
      word('w2 ');
      await written();
      expect(r.writes).toHaveLength(0);
      vi.advanceTimersByTime(DELTA_BATCH_MS);
      await written();
      expect(r.writes).toHaveLength(1);
      const frames = text(r.writes[0]!).split(/(?<=\n\n)/);
      expect(frames.map((f) => f.split('\n')[0])).toEqual(['event: agent_delta', 'event: prediction', 'event: agent_delta']);
      // Framed as alone: live only (no id), no items.
      expect(frames[1]).toBe(text(sseFrame(prediction, DISPLAY_START, displayNames(session.def)).frame.bytes));
      expect(frames[1]).toMatch(/^event: prediction\ndata: \{.*"items":\[\]\}\n\n$/);
      r.client.close();
    });
  });

  it('serialises and screens each event once, however many read it: every reader gets the same bytes', async () => {
    const { session, publish } = fakeSession();
    const { redactor, screened } = countingRedactor();
    const feed = followed(session, redactor);
    const readers = Array.from({ length: 200 }, () => reader());
    for (const r of readers) feed.attach(r.client, 0);
    publish({ type: 'user_input', text: 'A lighthouse keeper game' });
    publish({ type: 'agent_delta', turn_id: 't1', persona: 'ceo', text: 'Hel' });
    publish({ type: 'agent_delta', turn_id: 't1', persona: 'ceo', text: 'lo' });
    publish({ type: 'agent_message', turn_id: 't1', path: 'STRATEGIC.ceo', persona: 'ceo', text: 'Hello', turn: 1 });
    // Once per event, or once per batch of streamed words (the two words here are screened together).
    expect(screened()).toBe(3);
    await written();
    // Each reader's queue goes out as one write: the same bytes for every reader.
    for (const r of readers) expect(r.writes).toHaveLength(1);
    for (const r of readers) expect(Buffer.compare(Buffer.from(r.writes[0]!), Buffer.from(readers[0]!.writes[0]!))).toBe(0);
    const frames = text(readers[0]!.writes[0]!).split(/(?<=\n\n)/);
    expect(frames).toHaveLength(4);
    expect(frames[1]).toMatch(/^event: agent_delta\ndata: \{.*"text":"Hel".*"items":\[\]\}\n\n$/);
    expect(frames[2]).toMatch(/^event: agent_delta\ndata: \{.*"text":"lo".*\}\n\n$/);
    expect(frames[3]).toMatch(/^event: agent_message\ndata: \{.*\}\nid: 2\n\n$/);
    // One at a time, a reader gets the very bytes every other reader gets (made once).
    publish({ type: 'note', text: 'one more' });
    await written();
    for (const r of readers) expect(r.writes[1]).toBe(readers[0]!.writes[1]);
    for (const r of readers) r.client.close();
    expect(feed.size).toBe(200);
  });

  it('redacts an event that holds a secret, and its items never quote it', async () => {
    const { session, publish } = fakeSession();
    const feed = followed(session, countingRedactor().redactor);
    const r = reader();
    feed.attach(r.client, 0);
    publish({ type: 'agent_message', turn_id: 't1', path: 'STRATEGIC.ceo', persona: 'ceo', text: `the key is ${SECRET} and Bearer 9f8e7d6c5b4a39281706`, turn: 1 });
    await written();
    const frame = text(r.writes[0]!);
    const data = JSON.parse(frame.split('\n')[1]!.slice(6)) as { text: string; items: { text: string }[] };
    expect(data.text).toBe('the key is [redacted] and Bearer [redacted]');
    expect(data.items[0]!.text).toBe(data.text);
    expect(frame).not.toContain(SECRET);
  });

  it('keeps the newest stored frames for readers joining within them; older ones come from the events the session holds', async () => {
    const { session, publish } = fakeSession();
    const feed = followed(session, countingRedactor().redactor);
    for (let i = 1; i <= FEED_RECENT + 10; i++) publish({ type: 'note', text: `note ${i}` });
    publish({ type: 'agent_delta', turn_id: 't1', persona: 'ceo', text: 'not kept' });
    expect(feed.covers(10)).toBe(true);
    expect(feed.covers(9)).toBe(false);
    const late = reader(FEED_RECENT);
    feed.attach(late.client, FEED_RECENT);
    await written();
    expect([...text(late.writes[0]!).matchAll(/\nid: (\d+)\n/g)].map((m) => Number(m[1]))).toEqual(Array.from({ length: 10 }, (_, i) => FEED_RECENT + 1 + i));
    const replayed = feed.replay(5)!;
    expect(replayed.map((f) => f.seq)).toEqual(Array.from({ length: FEED_RECENT + 5 }, (_, i) => 6 + i));
    expect(text(replayed[0]!.bytes)).toContain('note 6');
  });

  it('readers of a session that published before anyone read it: each event worded and screened once, one joined copy for all', async () => {
    const { session, publish } = fakeSession();
    const { redactor, screened } = countingRedactor();
    const feed = new EventFeed(undefined, redactor);
    // The session publishes (its brief, its first turn) before its feed exists: a reader connects after creating it.
    publish({ type: 'user_input', text: 'A lighthouse keeper game' });
    publish({ type: 'agent_message', turn_id: 't1', path: 'STRATEGIC.ceo', persona: 'ceo', text: 'Hello', turn: 1 });
    publish({ type: 'note', text: 'third' });
    feed.follow(session);
    expect(feed.covers(0)).toBe(true);
    const readers = Array.from({ length: 50 }, () => reader());
    for (const r of readers) feed.attach(r.client, 0);
    expect(screened()).toBe(3);
    await written();
    for (const r of readers) {
      expect(r.writes).toHaveLength(1);
      expect(r.writes[0]).toBe(readers[0]!.writes[0]);
    }
    expect([...text(readers[0]!.writes[0]!).matchAll(/\nid: (\d+)\n/g)].map((m) => Number(m[1]))).toEqual([1, 2, 3]);
    // A reader resuming among them gets the rest; later events reach everyone once.
    const late = reader(2);
    feed.attach(late.client, 2);
    publish({ type: 'note', text: 'fourth' });
    await written();
    expect([...text(Buffer.concat(late.writes)).matchAll(/\nid: (\d+)\n/g)].map((m) => Number(m[1]))).toEqual([3, 4]);
    expect(screened()).toBe(4);
  });

  it('folds an event published while nobody reads once: a reader joining later gets its frame from that fold', async () => {
    const { session, publish } = fakeSession();
    // Names are looked up by every wording of an event: counted, they tell how often it was worded.
    const def = studio().def;
    let lookups = 0;
    const agentIndex = new Map(def.agentIndex);
    const get = agentIndex.get.bind(agentIndex);
    agentIndex.get = (id) => (lookups++, get(id));
    (session as { def: unknown }).def = { ...def, agentIndex };
    const feed = followed(session, countingRedactor().redactor);
    publish({ type: 'agent_message', turn_id: 't1', path: 'STRATEGIC.ceo', persona: 'ceo', text: 'Hello', turn: 1 });
    const worded = lookups;
    expect(worded).toBeGreaterThan(0);
    const r = reader();
    feed.attach(r.client, 0);
    await written();
    expect(text(r.writes[0]!)).toContain('"who":"CEO"');
    expect(lookups).toBe(worded);
  });

  it('readers resuming at one point share one joined copy of the replay until the session publishes more', () => {
    const { session, publish } = fakeSession();
    const feed = followed(session, countingRedactor().redactor);
    for (let i = 1; i <= FEED_RECENT + 10; i++) publish({ type: 'note', text: `note ${i}` });
    const first = feed.replayJoined(5)!;
    expect(first).toHaveLength(1);
    expect(feed.replayJoined(5)![0]).toBe(first[0]);
    expect(Buffer.from(first[0]!.bytes).equals(Buffer.concat(feed.replay(5)!.map((f) => f.bytes)))).toBe(true);
    expect(first[0]!.seq).toBe(FEED_RECENT + 10);
    publish({ type: 'note', text: 'one more' });
    const next = feed.replayJoined(5)![0]!;
    expect(next).not.toBe(first[0]);
    expect(text(next.bytes)).toContain('one more');
  });

  it('a reopened session: the fold starts from the events it holds, and readers before them need the store', async () => {
    const recent = [
      { type: 'directive', turn_id: 't4', path: 'STRATEGIC.ceo', persona: 'ceo', directive: { transition: 'APPROVE_AND_HANDOFF', next_agent: 'cfo' }, source: 'tool', session_id: 's', seq: 40, at: 0 },
    ] as unknown as TroupeEvent[];
    const { session, publish } = fakeSession(recent);
    const feed = followed(session, countingRedactor().redactor);
    // The feed keeps the events the session holds: a reader resuming just before them needs nothing else.
    expect(feed.covers(39)).toBe(true);
    expect(feed.covers(38)).toBe(false);
    expect(feed.replay(10)).toBeNull();
    const r = reader(40);
    feed.attach(r.client, 40);
    publish({ type: 'transition', from: 'STRATEGIC.ceo', to: 'STRATEGIC.cfo', reason: 'handoff', kind: 'agent' });
    await written();
    // Worded with the directive before it: approved, not a plain handoff.
    expect(text(r.writes[0]!)).toContain('APPROVE_AND_HANDOFF');
  });

  it('a session nobody reads holds no frames; a late reader of its finished turn still gets every frame, byte for byte', async () => {
    const long = 'a finished turn, worded at length. '.repeat(80);
    const feeds: { feed: EventFeed; first: string }[] = [];
    for (let s = 0; s < 150; s++) {
      const { session, publish } = fakeSession();
      const feed = followed(session, countingRedactor().redactor);
      const r = reader();
      const leave = feed.attach(r.client, 0);
      for (let i = 1; i <= FEED_RECENT; i++) publish({ type: 'note', text: `${i}: ${long}` });
      await written();
      expect(feed.framesHeld).toBe(FEED_RECENT);
      leave();
      expect(feed.framesHeld).toBe(0);
      r.client.close();
      feeds.push({ feed, first: r.writes.map(text).join('') });
      r.writes.length = 0;
    }
    // 150 sessions x 32 frames of ~3 KB each were 14 MB held, for readers that may never come. (Counted, not read
    // from the process's memory after a gc(): V8 frees array buffers in the background, which failed under load.)
    for (const { feed, first } of feeds.slice(0, 3)) {
      const late = reader();
      feed.attach(late.client, 0);
      await written();
      expect(late.writes.map(text).join('')).toBe(first);
      expect(first.match(/\nid: /g)).toHaveLength(FEED_RECENT);
    }
  });
});
