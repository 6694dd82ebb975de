// Journal format 7: an event of a usual layout (its type and payload keys, in order) whose envelope the line already
// says is stored as a row, its layout's number and then its values; reading builds the object again.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { CHAIN_START, sealLine } from '../../src/store/journal-chain.js';
import { JournalCheck } from '../../src/store/journal-check.js';
import { restoreRecord, slimRecord } from '../../src/store/journal-codec.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { SESSION_SCHEMA_VERSION, type JournalRecord } from '../../src/store/session-file.js';
import { REPO_ROOT, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { ENV, fixtureInDataDir } from './support.js';
import { storedDocumentText } from '../helpers/stored-document.js';

const FIXTURES = join(REPO_ROOT, 'tests', 'fixtures', 'sessions');
const ID = 'format7';
const tempDir = tempDirPerTest('troupe-format7-');
const env = (seq: number) => ({ session_id: ID, seq, at: 50 });
const record = (events: Record<string, unknown>[], input?: Record<string, unknown>): JournalRecord => ({ n: 4, ...(input ? { input } : {}), events }) as unknown as JournalRecord;
const roundTrip = (r: JournalRecord) => restoreRecord(JSON.parse(JSON.stringify(slimRecord(r, ID))), ID);
const stored = (r: JournalRecord) => (JSON.parse(JSON.stringify(slimRecord(r, ID))) as { events: unknown[] }).events;

/** A copy of the version-`v` session fixture in a new data directory. */
const copyFixture = (v: number) => fixtureInDataDir(tempDir(), v);

describe('journal format 7: events as rows', () => {
  it('stores the events of a turn as rows (type and key names written by number) and reads them back as published, key order included', () => {
    const input = {
      type: 'agent_completed',
      turnId: 't9',
      text: 'a reply long enough to be worth a reference, surely',
      directive: { ok: true, directive: { transition: 'APPROVE_AND_HANDOFF', next_agent: 'cfo' }, source: 'tool' },
    };
    const decision = { winner: null, proposals: [], why: 'only one', weights: { urgency: 0.3, dependency: 0.4, user_intent: 0.3 } };
    const events = [
      { type: 'usage', persona: 'ceo', model: 'm', prompt_tokens: 9, completion_tokens: 1, cost: null, total_tokens: 10, total_cost: null, ...env(10) },
      { type: 'agent_message', turn_id: 't9', path: 'S.ceo', persona: 'ceo', text: input.text, turn: 9, ...env(11) },
      { type: 'directive', turn_id: 't9', path: 'S.ceo', persona: 'ceo', directive: input.directive.directive, source: 'tool', ...env(12) },
      { type: 'approval', turn: 9, by: 'ceo', of: 'cfo', status: 'APPROVED', ...env(13) },
      { type: 'arbitration', from: 'S.ceo', decision, ...env(14) },
      { type: 'transition', from: 'S.ceo', to: 'F.cfo', reason: 'APPROVE_AND_HANDOFF — only one', kind: 'agent', ...env(15) },
      { type: 'major_exited', major: 'S', ...env(16) },
      { type: 'major_entered', major: 'F', ...env(17) },
      { type: 'state_entered', path: 'F.cfo', persona: 'cfo', major: 'F', ...env(18) },
      { type: 'agent_started', turn_id: 't10', path: 'F.cfo', persona: 'cfo', attempt: 1, model: 'm', inbox: 'handoff', ...env(19) },
    ];
    const r = record(events, input);
    const rows = stored(r) as unknown[][];
    expect(rows.every((e) => Array.isArray(e))).toBe(true);
    expect(rows[1]).toEqual([2, 't9', 'S.ceo', 'ceo', 0, 9]);
    // major_exited and major_entered have the same keys: the number tells them apart.
    expect(rows[6]![0]).not.toBe(rows[7]![0]);
    const line = JSON.stringify(rows);
    expect(line).not.toContain('"type"');
    expect(line).not.toContain('"turn_id"');
    expect(JSON.stringify(roundTrip(r))).toBe(JSON.stringify(r));
  });

  it('each row holds only its own values, at its length: a longer row, one given up for an object, then a shorter one, across lines', () => {
    const agent = { target: 'b', source: 'agent', criteria: { urgency: 0.5, dependency: 0.6, user_intent: 0.4 }, reason: 'r', proposer: 'a', targetId: 'b', score: 0.5, status: 'winner' };
    const queued = { ...agent, source: 'queue', status: 'lost', expires: 9, dropReason: 'gone' };
    // Given up for an object at its fourth key, after three values were read.
    const nested = { target: 'c', source: 'queue', criteria: { urgency: 0.4, dependency: 0.5, user_intent: 0.5 }, reason: { deep: 1 } };
    const decision = { winner: agent, proposals: [queued, nested, agent], why: 'w', weights: { urgency: 0.3, dependency: 0.4, user_intent: 0.3 } };
    const long = record([
      { type: 'usage', persona: 'a', model: 'm', prompt_tokens: 1, completion_tokens: 1, cached_tokens: 0, cost: 1, total_tokens: 2, total_cost: 1, ...env(1) },
      { type: 'approval', turn: 2, by: 'ceo', of: 'cfo', status: 'APPROVED', ...env(2), note: 'envelope not last' },
      { type: 'arbitration', from: 'S.a', decision, ...env(3) },
      { type: 'major_entered', major: 'F', ...env(4) },
    ]);
    const short = record([{ type: 'major_exited', major: 'S', ...env(1) }]);
    const first = slimRecord(long, ID) as { events: unknown[] };
    const before = JSON.stringify(first);
    const second = slimRecord(short, ID) as { events: unknown[][] };
    // The first line's rows are its own: slimming the next line changed none of them.
    expect(JSON.stringify(first)).toBe(before);
    expect(second.events).toEqual([[8, 'S']]);
    const rows = first.events as unknown[][];
    expect(rows[0]!.length).toBe(9);
    expect(rows[3]).toEqual([9, 'F']);
    const proposals = (rows[2]![2] as { proposals: unknown[] }).proposals;
    expect(proposals[0]).toHaveLength(11);
    expect(proposals[1]).toEqual(nested);
    expect(proposals[2]).toHaveLength(9);
    expect(JSON.stringify(roundTrip(long))).toBe(JSON.stringify(long));
    expect(JSON.stringify(roundTrip(short))).toBe(JSON.stringify(short));
  });

  it('moves to another layout of the type when a key or the end says so (usage with cached tokens, an approval with its reason)', () => {
    const events = [
      { type: 'usage', persona: null, model: 'm', prompt_tokens: 9, completion_tokens: 1, cached_tokens: 4, cost: 0.1, total_tokens: 10, total_cost: 0.1, ...env(1) },
      { type: 'approval', turn: 2, by: 'ceo', of: 'cfo', status: 'REJECTED', reason: 'not yet', ...env(2) },
      { type: 'usage', persona: 'a', model: 'm', prompt_tokens: 1, completion_tokens: 1, cost: null, total_tokens: 2, total_cost: null, ...env(3) },
    ];
    const rows = stored(record(events)) as unknown[][];
    expect(rows.map((e) => Array.isArray(e))).toEqual([true, true, true]);
    expect(rows[0]![0]).not.toBe(rows[2]![0]);
    expect(JSON.stringify(roundTrip(record(events)))).toBe(JSON.stringify(record(events)));
  });

  it('keeps as an object an event of another layout: a key missing, added or out of order, a key before its type, a new type, a value JSON leaves out', () => {
    const events = [
      { type: 'approval', turn: 2, by: 'ceo', of: 'cfo', ...env(1) },
      { type: 'approval', turn: 2, by: 'ceo', of: 'cfo', status: 'APPROVED', extra: 1, ...env(2) },
      { type: 'approval', by: 'ceo', turn: 2, of: 'cfo', status: 'APPROVED', ...env(3) },
      { turn: 2, type: 'approval', by: 'ceo', of: 'cfo', status: 'APPROVED', ...env(4) },
      { type: 'a_newer_kind', major: 'S', ...env(5) },
      { type: 'major_entered', major: undefined, ...env(6) },
      { type: 'major_exited', major: () => 'S', ...env(7) },
      { type: 7, major: 'S', ...env(8) },
    ];
    const r = record(events);
    expect((stored(r) as unknown[]).map((e) => Array.isArray(e))).toEqual(events.map(() => false));
    expect(JSON.stringify(roundTrip(r))).toBe(JSON.stringify(r));
    // An event whose envelope is not the usual one is kept whole, as before.
    const whole = record([{ type: 'major_exited', major: 'S', session_id: 'another', seq: 1, at: 1 }]);
    expect(JSON.stringify(slimRecord(whole, ID))).toBe(JSON.stringify(whole));
  });

  it('reads a row an edit left out of shape as stored (readers skip the malformed event): an unknown number, a wrong length, no number', () => {
    const json = '{"n":1,"seq":1,"at":5,"events":[[99,"S"],[8],[8,"S","T"],["major_exited","S"],[-1],[8,"S"]]}';
    const check = new JournalCheck('/data/s.jsonl', { chained: true });
    const events = check.next(Buffer.from(sealLine(json, CHAIN_START).line)).events as unknown[];
    expect(events.slice(0, 5)).toEqual([[99, 'S'], [8], [8, 'S', 'T'], ['major_exited', 'S'], [-1]]);
    expect(events[5]).toEqual({ type: 'major_exited', major: 'S', session_id: 's', seq: 6, at: 5 });
  });

  it('the version-7 fixture (a real run) reads back the events of the version-6 one, in fewer bytes', async () => {
    const read = async (v: number) => (await new LowdbStore(copyFixture(v).dir).read(`fixture-v${v}`)).events.map(({ session_id: _s, ...e }) => e);
    expect(JSON.stringify(await read(7))).toBe(JSON.stringify(await read(6)));
    expect(readFileSync(join(FIXTURES, 'v7.jsonl')).length).toBeLessThan(readFileSync(join(FIXTURES, 'v6.jsonl')).length);
  });

  it('a version-6 session opens, keeps its old lines byte for byte, goes on with rows and reads back the same events', async () => {
    const { dir, path, journal } = copyFixture(6);
    const oldLines = readFileSync(journal, 'utf8');
    const before = await new LowdbStore(dir).read('fixture-v6');
    const session = await openSession({ store: new LowdbStore(dir), resume: 'fixture-v6', model: new DemoModel(), team: studio(), env: ENV, clock: () => Date.UTC(2026, 0, 2) });
    session.send({ type: 'user_message', text: 'one more pass on the lighthouse, please' });
    await session.settled();
    await session.stop();
    expect(existsSync(`${path}.v6.bak`)).toBe(true);
    expect(JSON.parse(storedDocumentText(path)).schema).toBe(SESSION_SCHEMA_VERSION);
    const text = readFileSync(journal, 'utf8');
    expect(text.startsWith(oldLines)).toBe(true);
    const added = text
      .slice(oldLines.length)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { events: unknown[] });
    expect(added.flatMap((l) => l.events).filter((e) => Array.isArray(e)).length).toBeGreaterThan(5);
    const after = await new LowdbStore(dir).read('fixture-v6');
    expect(JSON.stringify(after.events.slice(0, before.events.length))).toBe(JSON.stringify(before.events));
    expect(after.events.length).toBeGreaterThan(before.events.length + 5);
    for (const e of after.events.slice(before.events.length)) expect(e).toMatchObject({ type: expect.any(String), session_id: 'fixture-v6' });
    expect(after.events.map((e) => e.seq)).toEqual(after.events.map((_, i) => i + 1));
  });
});
