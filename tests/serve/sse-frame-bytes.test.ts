import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TroupeEvent, TroupeEventName } from '../../src/engine/event-map.js';
import { redactorFrom } from '../../src/llm/redact.js';
import { DISPLAY_START, displayNames } from '../../src/report/display-items.js';
import { EventFeed } from '../../src/serve/event-feed.js';
import { SseClient } from '../../src/serve/sse-client.js';
import { deltasFrame, storedFrames } from '../../src/serve/sse-frame.js';
import type { TroupeSession } from '../../src/session/troupe-session.js';
import { EVENT_SAMPLES, sampleEvent } from '../helpers/event-samples.js';
import { studio } from '../helpers/team.js';

// The SSE bytes of a session log that holds every event (and the variants that word differently: branches,
// repeated retries, an error the next lines point to, debates in one state), secrets (an env value and
// credential shapes) and control characters (OSC 52, CSI, C1, bidi overrides, line separators), as the
// server sent them before its frames were made faster: any change to a frame's bytes fails here.
const FIXTURE = join(import.meta.dirname, '../fixtures/serve/frames.sse');
const SECRET = 'troupe-SENTINEL-key-7f3a9c1e5b';
const redactor = redactorFrom({ OPENAI_API_KEY: SECRET });
const HOSTILE = 'title\x1b]0;pwned\x07 clip\x1b]52;c;ZXZpbA==\x07 csi\x1b[2J c1\x9b31m bidi\u202eevil\u202c sep\u2028\u2029 del\x7f bell\x07 nul\x00 tab\t';

function log(): TroupeEvent[] {
  const events: TroupeEvent[] = [];
  const add = (type: TroupeEventName, payload: object = {}) => {
    const sample = sampleEvent(type, events.length + 1);
    events.push({ ...sample, ...payload, session_id: 's', seq: events.length + 1, at: sample.at + events.length * 1000 } as TroupeEvent);
  };
  for (const type of Object.keys(EVENT_SAMPLES) as TroupeEventName[]) add(type);
  add('user_input', { text: `my key is ${SECRET}, and ${HOSTILE}`, kind: 'brief' });
  add('agent_started', { branch: undefined });
  add('agent_message', { text: `sk-proj-${'a1B2c3D4'.repeat(5)} and Bearer 9f8e7d6c5b4a39281706 ${HOSTILE}`, branch: 'b' });
  add('agent_message', { text: 'Asia and password talk, nothing secret', persona: 'ceo', path: 'STRATEGIC.ceo' });
  add('tool_call', { phase: 'started', ok: undefined, detail: undefined });
  add('tool_call', { ok: true, summary: `ran ${HOSTILE}` });
  add('command_approval', { phase: 'allowed' });
  add('command_approval', { phase: 'denied', branch: undefined });
  add('approval', { status: 'APPROVED', reason: undefined });
  add('directive', { directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'ceo', key_decisions: [`keep ${SECRET} out`, 'two'] } });
  add('transition', { kind: 'agent' });
  add('retry', { attempt: 1, reason: 'down' });
  add('retry', { attempt: 2, reason: 'down' });
  add('error', { message: 'the model is down' });
  add('awaiting_user', { reason: 'turn failed: the model is down; !continue retries' });
  add('transition', { kind: 'error', reason: 'the model is down' });
  add('verdict', { round: 1, agree: true, approve: true });
  add('debate_ended', { rounds: 1, consensus: true, synthesised: false });
  add('verdict', { round: 1 });
  add('debate_ended', { rounds: 2 });
  add('warming', { status: 'failed', reason: undefined });
  add('session_ended', { output: `line one\n${HOSTILE}` });
  add('session_ended', { output: undefined, detail: undefined });
  return events;
}

const deltas = (from: number): TroupeEvent[] =>
  ['Hel', `lo ${SECRET}`, HOSTILE, ' world'].map((text, i) => ({ ...sampleEvent('agent_delta', from), text, at: sampleEvent('agent_delta').at + i }) as TroupeEvent);

/** The bytes a reader gets from a feed that followed the session before it attached (kept frames, joined) and then live. */
async function feedBytes(events: TroupeEvent[]): Promise<Buffer> {
  const half = Math.floor(events.length / 2);
  const recent = events.slice(0, half);
  const listeners: ((e: TroupeEvent) => void)[] = [];
  const session = { def: studio().def, recent: () => recent, subscribe: (l: (e: TroupeEvent) => void) => (listeners.push(l), () => undefined) } as unknown as TroupeSession;
  const feed = new EventFeed(undefined, redactor);
  feed.follow(session);
  // Published with no reader (folded only), then read from the kept frames by the reader attaching.
  for (const e of events.slice(half, half + 5)) for (const l of listeners) l(e);
  const writes: Uint8Array[] = [];
  const client = new SseClient(0);
  client.start({ write: (b) => (writes.push(b), true), onDrain: () => undefined, end: () => undefined }, [], 60_000);
  feed.attach(client, 0);
  for (const e of events.slice(half + 5)) for (const l of listeners) l(e);
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
  client.close();
  return Buffer.concat(writes);
}

async function allBytes(): Promise<Buffer> {
  const events = log();
  const names = displayNames(studio().def);
  const stored = storedFrames(events, 0, names, redactor).map((f) => f.bytes);
  const batch = deltasFrame(deltas(events.length), DISPLAY_START, names, redactor).bytes;
  const clean = deltasFrame(
    deltas(events.length).filter((e) => !e.type.includes('x') && !(e as { text: string }).text.includes(SECRET)),
    DISPLAY_START,
    names,
    redactor,
  ).bytes;
  return Buffer.concat([...stored, batch, clean, await feedBytes(events)]);
}

describe('SSE frame bytes', () => {
  it('are byte for byte what the server sent before: every event, its items, redaction and terminal-safe escapes', async () => {
    const bytes = await allBytes();
    if (process.env.UPDATE_FRAMES_FIXTURE) writeFileSync(FIXTURE, bytes);
    const text = bytes.toString('utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('\x1b');
    expect(Buffer.compare(bytes, readFileSync(FIXTURE))).toBe(0);
  });
});
