import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'hono';
import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { redactorFrom } from '../../src/llm/redact.js';
import { DISPLAY_START, displayNames, displayStep, SILENT_EVENTS } from '../../src/report/display-items.js';
import { SseClient } from '../../src/serve/sse-client.js';
import { deltasFrame, joinedBytes, type SseFrame, sseFrame, sseFrames } from '../../src/serve/sse-frame.js';
import { sseMessage } from '../../src/serve/sse-message.js';
import { streamFrames } from '../../src/serve/sse-stream.js';
import { terminalSafeJson } from '../../src/report/terminal-safe.js';
import { studio } from '../helpers/team.js';

const frame = (seq: number, text: string): SseFrame => ({ seq, live: false, bytes: Buffer.from(`event: note\ndata: ${text}\nid: ${seq}\n\n`) });
const afterSlices = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

/** A stamped event as the bus makes it: its own fields, then the envelope (`at` last). */
/** JSON made terminal-safe, as the SSE data of an event is. */
const terminalSafeOf = (value: unknown): string => terminalSafeJson(JSON.stringify(value));

const stamped = (e: Record<string, unknown>, seq: number, at = 1_764_000_000_000) => ({ ...e, session_id: 's1', seq, at }) as unknown as TroupeEvent;

describe('SSE writes', () => {
  it('what a session publishes in one go leaves as one write per reader', async () => {
    const writes: Uint8Array[] = [];
    const client = new SseClient(0);
    client.start({ write: (b) => (writes.push(b), true), onDrain: () => undefined, end: () => undefined }, [], 60_000);
    // The reader has caught up and waits: the session's step publishes three events at once.
    await afterSlices();
    for (let seq = 1; seq <= 3; seq++) client.push(frame(seq, `step ${seq}`));
    await afterSlices();
    expect(writes).toHaveLength(1);
    expect(Buffer.from(writes[0]!).toString()).toBe('event: note\ndata: step 1\nid: 1\n\nevent: note\ndata: step 2\nid: 2\n\nevent: note\ndata: step 3\nid: 3\n\n');
    client.close();
  });

  it('a reader that has just connected is written in a slice of the loop, not after the task that connected it', async () => {
    const writes: Uint8Array[] = [];
    const client = new SseClient(0);
    client.start({ write: (b) => (writes.push(b), true), onDrain: () => undefined, end: () => undefined }, [frame(1, 'backlog')], 60_000);
    // A live frame for it before its slice does not write its backlog after this task either.
    client.push(frame(2, 'live'));
    await new Promise((r) => process.nextTick(r));
    await Promise.resolve();
    expect(writes).toHaveLength(0);
    await afterSlices();
    expect(writes.map((b) => Buffer.from(b).toString())).toEqual(['event: note\ndata: backlog\nid: 1\n\nevent: note\ndata: live\nid: 2\n\n']);
    // Once started, what is pushed goes out after the pushing task, as before.
    client.push(frame(3, 'next'));
    await new Promise((r) => process.nextTick(r));
    expect(writes).toHaveLength(2);
    client.close();
  });

  it('readers queued the same frames share one joined copy of them', async () => {
    const got = [0, 1, 2].map(() => {
      const writes: Uint8Array[] = [];
      const client = new SseClient(0);
      client.start({ write: (b) => (writes.push(b), true), onDrain: () => undefined, end: () => undefined }, [], 60_000);
      return { client, writes };
    });
    await afterSlices();
    const batch = [frame(1, 'one'), frame(2, 'two')];
    for (const { client } of got) for (const f of batch) client.push(f);
    await afterSlices();
    for (const { writes } of got) {
      expect(writes).toHaveLength(1);
      expect(writes[0]).toBe(got[0]!.writes[0]);
    }
    expect(Buffer.from(got[0]!.writes[0]!).toString()).toBe('event: note\ndata: one\nid: 1\n\nevent: note\ndata: two\nid: 2\n\n');
    for (const { client } of got) client.close();
  });

  it('a large batch (a replay) is written as the shared buffers it is made of, not copied per reader', async () => {
    const replay: SseFrame = { seq: 40, live: false, bytes: Buffer.alloc(64 * 1024, 'x') };
    const lists = [0, 1].map(() => {
      const got: Uint8Array[][] = [];
      const client = new SseClient(0);
      client.start({ write: (b) => (got.push([b]), true), writeMany: (list) => (got.push([...list]), true), onDrain: () => undefined, end: () => undefined }, [replay, frame(41, 'after')], 60_000);
      return { client, got };
    });
    await afterSlices();
    for (const { got, client } of lists) {
      expect(got).toHaveLength(1);
      expect(got[0]![0]).toBe(replay.bytes);
      client.close();
    }
  });

  it("a reader's bytes go to its socket inside its write, not corked until the next tick", async () => {
    let corked = -1;
    const server = createServer((_req, res: ServerResponse) => {
      const client = new SseClient(0);
      const c = { env: { outgoing: res } } as unknown as Context;
      streamFrames(c, { stored: [frame(1, 'first')], client, live: true, keepAliveMs: 60_000, done: () => undefined });
      client.flushNow();
      // Node's response corks its socket at a write and uncorks it on the next tick: by then a slice of a
      // thousand readers' writes would all be sent at once, after the slice.
      corked = res.socket!.writableCorked;
      client.close();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(await response.text()).toBe('event: note\ndata: first\nid: 1\n\n');
      expect(corked).toBe(0);
    } finally {
      server.close();
    }
  });

  it('an event serialised from its JSON tail is the JSON of the event with its time as text and its items', () => {
    const items = [{ kind: 'line', text: 'x' }] as never[];
    const cases = [
      stamped({ type: 'agent_delta', turn_id: 't1', persona: 'ceo', text: 'Hel"lo\u2028' }, 3),
      stamped({ type: 'agent_message', turn_id: 't1', persona: 'ceo', text: 'at the "at":5}', nested: { at: 7 } }, 4),
      // Not the bus's shape: `at` first, or an `items` of its own: serialised from a copy as before.
      { at: 1_764_000_000_001, type: 'note', text: 'x', session_id: 's', seq: 5 } as unknown as TroupeEvent,
      stamped({ type: 'note', text: 'x', items: ['own'] }, 6),
    ];
    const names = displayNames(studio().def);
    for (const e of cases) {
      // A streamed word is silent: it never has items.
      for (const list of SILENT_EVENTS.has(e.type) ? [[]] : [[], items]) {
        const { data } = sseMessage(e, list);
        expect(data).toBe(terminalSafeOf({ ...e, at: new Date(e.at).toISOString(), items: list }));
        const made = sseFrame(e, DISPLAY_START, names, undefined, { state: DISPLAY_START, items: list }).frame;
        expect(Buffer.from(made.bytes).toString()).toBe(`event: ${e.type}\ndata: ${data}\n${e.type === 'agent_delta' ? '' : `id: ${e.seq}\n`}\n`);
      }
    }
  });

  it('frames are terminal-safe whatever the text: ASCII, DEL, C1, bidi overrides, line separators, safe non-ASCII', () => {
    const names = displayNames(studio().def);
    const texts = ['plain words', 'del \x7f here', 'c1 \u0085 \u009b[2J', 'bidi \u202e evil \u2066', 'sep \u2028 \u2029', 'é 灯台守 🚀', 'mixed é \x7f', '\x7f'];
    for (const [i, t] of texts.entries()) {
      for (const e of [stamped({ type: 'note', text: t }, i + 1), stamped({ type: 'agent_delta', turn_id: 't1', persona: 'ceo', text: t }, i + 1)]) {
        const live = e.type === 'agent_delta';
        const { data } = sseMessage(e, live ? [] : displayStep(DISPLAY_START, e, names).items);
        const expected = live ? `event: ${e.type}\ndata: ${data}\n\n` : `event: ${e.type}\ndata: ${data}\nid: ${i + 1}\n\n`;
        expect(Buffer.from(sseFrame(e, DISPLAY_START, names).frame.bytes).toString()).toBe(expected);
        expect(expected).not.toMatch(/[\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
      }
      const batch = [1, 2].map(() => stamped({ type: 'agent_delta', turn_id: 't1', persona: 'ceo', text: t }, i + 1));
      const one = batch.map((e) => `event: agent_delta\ndata: ${sseMessage(e, []).data}\n\n`).join('');
      expect(Buffer.from(deltasFrame(batch, DISPLAY_START, names).bytes).toString()).toBe(one);
    }
  });

  it("a stored event's frame (kept for readers joining later) owns its memory; a streamed word's may share a pool", () => {
    const names = displayNames(studio().def);
    const stored = sseFrame(stamped({ type: 'note', text: 'kept' }, 7), DISPLAY_START, names).frame;
    expect(stored.bytes.byteLength).toBeLessThan(512);
    // Not a slice of Node's shared 8 KiB pool: keeping it keeps only its own bytes.
    expect(stored.bytes.buffer.byteLength).toBe(stored.bytes.byteLength);
    expect(Buffer.from(stored.bytes).toString()).toMatch(/^event: note\ndata: \{.*"text":"kept".*\}\nid: 7\n\n$/);
  });

  it('frames made together (a reader joining a session that ran unread) are each what sseFrame makes, views of one buffer of their own', () => {
    const names = displayNames(studio().def);
    const secret = 'troupe-SENTINEL-key-7f3a9c1e5b';
    const redactor = redactorFrom({ OPENAI_API_KEY: secret });
    const events = [stamped({ type: 'note', text: 'one é' }, 1), stamped({ type: 'note', text: `two ${secret} \x7f` }, 2), stamped({ type: 'session_ended', reason: 'done' }, 3)];
    let state = DISPLAY_START;
    const list = events.map((e) => {
      const before = state;
      state = displayStep(state, e, names).state;
      return { e, before };
    });
    const together = sseFrames(list, names, redactor);
    const alone = list.map((k) => sseFrame(k.e, k.before, names, redactor).frame);
    expect(together.map((f) => Buffer.from(f.bytes).toString())).toEqual(alone.map((f) => Buffer.from(f.bytes).toString()));
    expect(together.map((f) => [f.seq, f.live, f.ends])).toEqual(alone.map((f) => [f.seq, f.live, f.ends]));
    expect(Buffer.from(together[1]!.bytes).toString()).not.toContain(secret);
    // One buffer, exactly their bytes (not a slice of Node's shared pool); joined, they are a view of it, not a copy.
    const total = alone.reduce((n, f) => n + f.bytes.byteLength, 0);
    for (const f of together) expect(f.bytes.buffer).toBe(together[0]!.bytes.buffer);
    expect(together[0]!.bytes.buffer.byteLength).toBe(total);
    const joined = joinedBytes(together);
    expect(joined.buffer).toBe(together[0]!.bytes.buffer);
    expect(Buffer.from(joined).equals(Buffer.concat(alone.map((f) => f.bytes)))).toBe(true);
    // Frames from different buffers are copied into one.
    expect(Buffer.from(joinedBytes(alone)).equals(Buffer.from(joined))).toBe(true);
  });

  it('a batch of streamed words is framed as each word would be alone, a secret redacted', () => {
    const secret = 'troupe-SENTINEL-key-7f3a9c1e5b';
    const redactor = redactorFrom({ OPENAI_API_KEY: secret });
    const names = displayNames(studio().def);
    const clean = [1, 2, 3].map((i) => stamped({ type: 'agent_delta', turn_id: 't1', persona: 'ceo', text: `word${i} \u0085` }, 2));
    const leaking = [...clean, stamped({ type: 'agent_delta', turn_id: 't1', persona: 'ceo', text: `key ${secret}` }, 2)];
    for (const batch of [clean, leaking]) {
      const one = deltasFrame(batch, DISPLAY_START, names, redactor);
      const each = Buffer.concat(batch.map((e) => sseFrame(e, DISPLAY_START, names, redactor).frame.bytes));
      expect(Buffer.from(one.bytes).toString()).toBe(each.toString());
      expect(one).toMatchObject({ seq: 2, live: true });
    }
    expect(Buffer.from(deltasFrame(leaking, DISPLAY_START, names, redactor).bytes).toString()).not.toContain(secret);
  });
});
