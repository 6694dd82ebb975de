import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import type { EngineInput } from '../../src/engine/input-events.js';
import { isLiveOnly } from '../../src/kernel/session-kernel.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { CHAIN_START, sealLine } from '../../src/store/journal-chain.js';
import { JournalCheck } from '../../src/store/journal-check.js';
import { restoreRecord, slimRecord } from '../../src/store/journal-codec.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { SESSION_SCHEMA_VERSION, type JournalRecord } from '../../src/store/session-file.js';
import type { ReadSession, Store } from '../../src/store/store.js';
import { REPO_ROOT, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { BRIEF, ENV, fixtureInDataDir } from './support.js';
import { storedDocumentText } from '../helpers/stored-document.js';

const FIXTURES = join(REPO_ROOT, 'tests', 'fixtures', 'sessions');
const ID = '6f1c1d0e-8a4b-4c8e-9d7a-1e2f3a4b5c6d';
const tempDir = tempDirPerTest('troupe-codec-');

// Events of one step mostly share a millisecond, as on a real clock; now and then the clock moves within a step.
function steppingClock(): () => number {
  let calls = 0;
  return () => Date.UTC(2026, 0, 1) + Math.floor(calls++ / 16);
}

/** Runs the demo brief into `store`, returning every stored event as the subscribers saw it. */
async function published(store: Store): Promise<TroupeEvent[]> {
  const session = await openSession({ store, team: studio(), teamDir: REPO_ROOT, model: new DemoModel(), id: ID, brief: BRIEF, clock: steppingClock(), env: ENV });
  const seen: TroupeEvent[] = [];
  session.subscribe((e) => {
    if (!isLiveOnly(e.type)) seen.push(e);
  });
  session.start(BRIEF);
  await session.settled();
  await session.stop();
  // Serialised now: what a reader sees is compared with the events as they were published, key order included.
  return JSON.parse(JSON.stringify(seen)) as TroupeEvent[];
}

const record = (events: Record<string, unknown>[], input?: Record<string, unknown>): JournalRecord => ({ n: 4, ...(input ? { input } : {}), events }) as unknown as JournalRecord;
const roundTrip = (r: JournalRecord) => restoreRecord(JSON.parse(JSON.stringify(slimRecord(r, ID))), ID);

/** A copy of the version-`v` session fixture (document and journal) in a new data directory. */
const copyFixture = (v: number) => fixtureInDataDir(tempDir(), v);

/** Resumes a copy of the version-`v` fixture with today's code, sends one input and lets it settle; its journal and events from before. */
async function continueFixture(v: number, input: EngineInput): Promise<{ dir: string; path: string; journal: string; oldLines: string; before: ReadSession }> {
  const copy = copyFixture(v);
  const oldLines = readFileSync(copy.journal, 'utf8');
  const before = await new LowdbStore(copy.dir).read(`fixture-v${v}`);
  const session = await openSession({ store: new LowdbStore(copy.dir), resume: `fixture-v${v}`, model: new DemoModel(), team: studio(), env: ENV, clock: () => Date.UTC(2026, 0, 2) });
  session.send(input);
  await session.settled();
  await session.stop();
  return { ...copy, oldLines, before };
}

describe('journal format 4', () => {
  it('every reader gets back the events as they were published (file and memory store), from lines that leave out the session id and the input they repeat', async () => {
    const dir = tempDir();
    for (const store of [new LowdbStore(dir), new MemoryStore()] as Store[]) {
      const events = await published(store);
      const read = await store.read(ID);
      expect(JSON.stringify(read.events)).toBe(JSON.stringify(events));
      const opened = await store.open(ID, { recentEvents: 10 });
      expect(JSON.stringify(opened.recent)).toBe(JSON.stringify(events.slice(-10)));
      await opened.handle.close();
      const lines = store instanceof LowdbStore ? readFileSync(store.journalOf(ID), 'utf8').trimEnd().split('\n') : (store as MemoryStore).journals.get(ID)!;
      const text = lines.join('\n');
      // Most events are stored without their envelope; an agent's words are stored once, in the step's input.
      expect(text.split(ID).length - 1, `${text.split(ID).length - 1} of ${events.length}`).toBeLessThan(events.length / 3);
      const answer = read.records.find((r) => r.input?.type === 'agent_completed')!;
      const words = (answer.input as { text: string }).text;
      expect(words.length).toBeGreaterThan(32);
      expect(lines[answer.n - 1]!.split(JSON.stringify(words).slice(1, -1)).length - 1).toBe(1);
      // The memory store writes format 7 (its agent_message refers to the input); the file store format 8 (its events are replayed from it).
      expect(lines[answer.n - 1]).toContain(store instanceof LowdbStore ? '"step":[' : '"refs":[');
    }
  });

  it('keeps whole what it cannot rebuild: another session id, a seq out of line, another time, an envelope not last; short repeats are written out', () => {
    const input = {
      type: 'agent_completed',
      turnId: 't1',
      text: 'a reply long enough to be worth a reference, surely',
      directive: { ok: true, directive: { transition: 'COMPLETE' }, source: 'tool' },
    };
    const env = (seq: number, at = 50) => ({ session_id: ID, seq, at });
    const events = [
      { type: 'agent_message', turn_id: 't1', text: input.text, ...env(10) },
      { type: 'directive', turn_id: 't1', directive: input.directive.directive, source: 'tool', ...env(11) },
      { type: 'note', text: 'x', session_id: 'another', seq: 12, at: 50 },
      { type: 'note', text: 'y', ...env(14) },
      { type: 'note', text: 'z', ...env(14, 51) },
      { session_id: ID, seq: 15, at: 50, type: 'note', text: 'w' },
      { type: 'user_input', text: 't1', ...env(16) },
    ];
    const r = record(events, input);
    const slim = slimRecord(r, ID) as { seq: number; at: number; events: Record<string, unknown>[]; refs: unknown[] };
    expect(slim.seq).toBe(10);
    expect(slim.at).toBe(50);
    expect(slim.refs).toEqual([
      [0, 'text', 'text'],
      [1, 'directive', 'directive.directive'],
    ]);
    expect(slim.events.map((e) => 'seq' in e)).toEqual([false, false, true, true, true, true, false]);
    expect(slim.events[6]!.text).toBe('t1');
    expect(JSON.stringify(roundTrip(r))).toBe(JSON.stringify(r));
    // Nothing slim: the line is the record as before.
    const whole = record([{ type: 'note', text: 'x', session_id: 'another', seq: 1, at: 1 }]);
    expect(JSON.stringify(slimRecord(whole, ID))).toBe(JSON.stringify(whole));
    expect(JSON.stringify(roundTrip(record([])))).toBe(JSON.stringify(record([])));
  });

  it('a line whose seq, at or refs are not of their shape is refused as damaged, naming the line; a reference an edit left dangling leaves the field as stored', () => {
    const bad = [
      '{"n":1,"seq":"1","at":5,"events":[{"type":"note","text":"x"}]}',
      '{"n":1,"seq":1,"events":[{"type":"note","text":"x"}]}',
      '{"n":1,"events":[],"refs":[[0,"text"]]}',
      '{"n":1,"events":[],"refs":"text"}',
    ];
    for (const json of bad) {
      const check = new JournalCheck('/data/s.jsonl', { chained: true });
      expect(() => check.next(Buffer.from(sealLine(json, CHAIN_START).line)), json).toThrow(/^\/data\/s\.jsonl: line 1 (has a seq or at|has a reference|has refs).* the journal is damaged/);
    }
    const dangling =
      '{"n":1,"input":{"type":"user_input","text":"hello"},"seq":1,"at":1,"events":[{"type":"user_input","text":0},{"type":"note"}],"refs":[[0,"text","nothing"],[1,"text","text"],[5,"text","text"]]}';
    const check = new JournalCheck('/data/s.jsonl', { chained: true });
    expect(check.next(Buffer.from(sealLine(dangling, CHAIN_START).line)).events).toEqual([
      { type: 'user_input', text: 0, session_id: 's', seq: 1, at: 1 },
      { type: 'note', session_id: 's', seq: 2, at: 1 },
    ]);
  });

  it('a version-3 session opens, keeps its old lines byte for byte, goes on in the new form and reads back the same events', async () => {
    const { dir, path, journal, oldLines, before } = await continueFixture(3, { type: 'user_approve' });
    expect(existsSync(`${path}.v3.bak`)).toBe(true);
    expect(JSON.parse(storedDocumentText(path)).schema).toBe(SESSION_SCHEMA_VERSION);
    const text = readFileSync(journal, 'utf8');
    expect(text.startsWith(oldLines)).toBe(true);
    const added = text.slice(oldLines.length);
    expect(added).toMatch(/^\{"n":37,"seq":97,"at":\d+,"events":\[\{"type":"note","text":"session resumed/);
    expect(added).not.toContain('"session_id"');
    const after = await new LowdbStore(dir).read('fixture-v3');
    expect(JSON.stringify(after.events.slice(0, before.events.length))).toBe(JSON.stringify(before.events));
    expect(after.events.length).toBeGreaterThan(before.events.length + 1);
    expect(after.events.slice(before.events.length).map((e) => e.session_id)).toEqual(after.events.slice(before.events.length).map(() => 'fixture-v3'));
    expect(after.events.map((e) => e.seq)).toEqual(after.events.map((_, i) => i + 1));
  });
});

describe('journal format 5', () => {
  const env = (seq: number) => ({ session_id: ID, seq, at: 50 });
  const agent = {
    target: 'b',
    source: 'agent',
    criteria: { urgency: 0.5, dependency: 0.6, user_intent: 0.4 },
    reason: 'APPROVE_AND_HANDOFF',
    proposer: 'a',
    targetId: 'b',
    score: 0.51,
    status: 'winner',
  };
  const queued = {
    target: 'c',
    source: 'queue',
    criteria: { urgency: 0.4, dependency: 0.5, user_intent: 0.5 },
    reason: 'alternative',
    proposer: 'd',
    targetId: 'c',
    score: 0.47,
    status: 'lost',
    expires: 9,
  };
  // A shape arbitration does not write today, and proposals a row cannot hold: kept as they are.
  const odd = {
    source: 'user',
    target: 'e',
    criteria: { urgency: 1, dependency: 1, user_intent: 1 },
    reason: 'x',
    proposer: 'user',
    targetId: 'e',
    score: null,
    status: 'lost',
    note: 'a field of a newer troupe',
  };
  const nested = { ...queued, extra: { deep: [1, 2] } };
  const criteriaOutOfOrder = { ...queued, criteria: { dependency: 0.5, urgency: 0.4, user_intent: 0.5 } };
  const decision = { winner: agent, proposals: [agent, queued, odd, nested, criteriaOutOfOrder], why: 'highest score (0.51 vs 0.47)', weights: { urgency: 0.3, dependency: 0.4, user_intent: 0.3 } };

  it('stores an arbitration as rows with its key lists once and the winner as an index, and reads it back as published (key order, the winner the proposal it was)', () => {
    const whole = { type: 'arbitration', from: 'M.a', decision, session_id: 'another', seq: 3, at: 1 };
    const r = record([{ type: 'arbitration', from: 'M.a', decision, ...env(1) }, whole, { type: 'arbitration', from: 'M.a', decision: { ...decision, winner: null }, ...env(3) }]);
    const slim = slimRecord(r, ID) as { events: unknown[][]; packed: number[]; shapes: unknown[] };
    expect(slim.packed).toEqual([0, 1, 2]);
    // From format 7 the event is a row: [its layout's number, from, decision].
    const packed = slim.events[0]![2] as { winner: unknown; proposals: unknown[] };
    expect(packed.winner).toBe(0);
    expect(packed.proposals.slice(0, 2)).toEqual([
      [0, 'b', 'agent', [0.5, 0.6, 0.4], 'APPROVE_AND_HANDOFF', 'a', 'b', 0.51, 'winner'],
      [1, 'c', 'queue', [0.4, 0.5, 0.5], 'alternative', 'd', 'c', 0.47, 'lost', 9],
    ]);
    // Known key lists by number, another written out once for every row of the line that has it.
    expect(slim.shapes).toEqual([0, 1, Object.keys(odd)]);
    expect(packed.proposals.slice(3)).toEqual([nested, criteriaOutOfOrder]);
    // The record given is never changed.
    expect(decision.winner).toBe(agent);
    const back = roundTrip(r);
    expect(JSON.stringify(back)).toBe(JSON.stringify(r));
    const read = back.events[0] as unknown as { decision: { winner: unknown; proposals: unknown[] } };
    expect(read.decision.winner).toBe(read.decision.proposals[0]);
    const line = JSON.stringify(slim);
    expect(line.length).toBeLessThan(JSON.stringify(r).length * 0.7);
  });

  it('reads what an edit left out of shape as stored (readers skip the malformed event): a row without its shape, a winner out of range, no proposals', () => {
    const json =
      '{"n":1,"events":[{"type":"arbitration","decision":{"winner":5,"proposals":[[7,"b"],[0,"b","agent",[0.5,0.6,0.4],"r","a","b",0.51,"winner"]]}},{"type":"arbitration","decision":{"winner":0}}],"packed":[0,1,9],"shapes":[0]}';
    const check = new JournalCheck('/data/s.jsonl', { chained: true });
    const events = check.next(Buffer.from(sealLine(json, CHAIN_START).line)).events as unknown as { decision: { winner: unknown; proposals: unknown[] } }[];
    expect(events[0]!.decision.winner).toBe(5);
    expect(events[0]!.decision.proposals).toEqual([
      [7, 'b'],
      { target: 'b', source: 'agent', criteria: { urgency: 0.5, dependency: 0.6, user_intent: 0.4 }, reason: 'r', proposer: 'a', targetId: 'b', score: 0.51, status: 'winner' },
    ]);
    expect(events[1]!.decision).toEqual({ winner: 0 });
    const notList = new JournalCheck('/data/s.jsonl', { chained: true });
    expect(() => notList.next(Buffer.from(sealLine('{"n":1,"events":[],"packed":3}', CHAIN_START).line))).toThrow(/line 1 has a packed list that is not a list/);
  });

  it('a version-4 session opens, keeps its old lines byte for byte, goes on with packed arbitrations and reads back the same events', async () => {
    const { dir, path, journal, oldLines, before } = await continueFixture(4, { type: 'user_message', text: 'one more pass on the lighthouse, please' });
    expect(oldLines).not.toContain('"packed"');
    expect(existsSync(`${path}.v4.bak`)).toBe(true);
    expect(JSON.parse(storedDocumentText(path)).schema).toBe(SESSION_SCHEMA_VERSION);
    const text = readFileSync(journal, 'utf8');
    expect(text.startsWith(oldLines)).toBe(true);
    // From format 8 an arbitration is among the step's events a line leaves out: replayed, not packed.
    expect(text.slice(oldLines.length)).toContain('"step":[');
    const after = await new LowdbStore(dir).read('fixture-v4');
    expect(JSON.stringify(after.events.slice(0, before.events.length))).toBe(JSON.stringify(before.events));
    const arbitrations = after.events.slice(before.events.length).filter((e) => e.type === 'arbitration') as unknown as { decision: { winner: unknown; proposals: { status: string }[] } }[];
    expect(arbitrations.length).toBeGreaterThan(0);
    for (const a of arbitrations) expect(a.decision.winner).toEqual(a.decision.proposals.find((p) => p.status === 'winner'));
    expect(after.events.map((e) => e.seq)).toEqual(after.events.map((_, i) => i + 1));
  });

  it('the version-5 fixture (a real run) reads back as the version-4 one: the same events, in fewer bytes', async () => {
    const read = async (v: number) => (await new LowdbStore(copyFixture(v).dir).read(`fixture-v${v}`)).events.map(({ session_id: _s, ...e }) => e);
    expect(JSON.stringify(await read(5))).toBe(JSON.stringify(await read(4)));
    expect(readFileSync(join(FIXTURES, 'v5.jsonl')).length).toBeLessThan(readFileSync(join(FIXTURES, 'v4.jsonl')).length * 0.95);
  });
});
