// Journal format 8: a step's line stores its input (with the facts before it and the calls it starts), not the events
// step() derives from it; every reader gets them back by replaying step() over the document's base.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_SEMANTICS } from '../../src/engine/semantics.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { renderMarkdown, renderShow } from '../../src/report/session-report.js';
import { openSession } from '../../src/session/open-session.js';
import { stateAtJournalEnd } from '../../src/session/stored-tail.js';
import { forkSession } from '../../src/store/fork.js';
import { CHAIN_START, sealLine } from '../../src/store/journal-chain.js';
import { JournalCheck } from '../../src/store/journal-check.js';
import { DIGEST_VERSION, derivedDigest, restoreRecord, slimRecord } from '../../src/store/journal-codec.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import type { JournalRecord } from '../../src/store/session-file.js';
import { copiedTeam, demoRun, dropLeadEngineer, editable, editJournal, editPersona } from '../helpers/edited-team.js';
import { fixedClock, REPO_ROOT, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { ENV, fixtureInDataDir } from './support.js';

const FIXTURES = join(REPO_ROOT, 'tests', 'fixtures', 'sessions');
const ID = 'fixture-v8';
const tempDir = tempDirPerTest('troupe-format8-');
const published = () => JSON.parse(readFileSync(join(FIXTURES, 'v8.events.json'), 'utf8')) as { seq: number; type: string }[];

describe('journal format 8: a step line holds its input, not its events', () => {
  it('a line keeps the input, the facts before it and the calls it starts, with the semantics, count and digest of what it leaves out; read back it says where they go', () => {
    const env = (seq: number, at = 50) => ({ session_id: ID, seq, at });
    const input = { type: 'agent_completed', turnId: 't1', text: 'a reply long enough to be worth a reference, surely' };
    const events = [
      { type: 'usage', persona: 'a', model: 'm', prompt_tokens: 1, completion_tokens: 1, cost: null, total_tokens: 2, total_cost: null, ...env(10, 49) },
      { type: 'agent_message', turn_id: 't1', path: 'S.a', persona: 'a', text: input.text, turn: 1, ...env(11) },
      { type: 'transition', from: 'S.a', to: 'S.b', reason: 'r', kind: 'agent', ...env(12, 51) },
      { type: 'agent_started', turn_id: 't2', path: 'S.b', persona: 'b', attempt: 1, model: 'm', inbox: 'handoff', ...env(13) },
    ];
    const record = { n: 3, input, facts: 1, events } as unknown as JournalRecord;
    const text = JSON.stringify(slimRecord(record, ID, ENGINE_SEMANTICS));
    const line = JSON.parse(text) as Record<string, unknown> & { events: unknown[] };
    expect(line.events).toHaveLength(2);
    expect(JSON.stringify(line)).not.toContain('"S.a"');
    expect(line.step).toEqual([ENGINE_SEMANTICS, 2, expect.any(Number), DIGEST_VERSION]);
    // Not stamped at one time: each derived event's time is kept.
    expect(line.times).toEqual([50, 51]);
    const back = restoreRecord(JSON.parse(text) as Parameters<typeof restoreRecord>[0], ID);
    expect(back.events).toEqual([events[0], events[3]]);
    expect(back.derived).toEqual({ semantics: ENGINE_SEMANTICS, count: 2, digest: line.step && (line.step as number[])[2], version: DIGEST_VERSION, seq: 11, at: 50, times: [50, 51] });
    // A record whose derived events were not replayed (a fork of it) is written again with the same line.
    expect(JSON.stringify(slimRecord(back, ID, ENGINE_SEMANTICS))).toBe(text);
    // Without a semantics (the memory store, format 7) every event is kept.
    expect((slimRecord(record, ID) as { events: unknown[] }).events).toHaveLength(4);
    // Events whose envelope is not this session's, or whose seqs skip, are kept as stored.
    const odd = { ...record, events: [events[0], { ...events[1], seq: 20 }, events[2], events[3]] } as unknown as JournalRecord;
    expect((slimRecord(odd, ID, ENGINE_SEMANTICS) as { step?: unknown }).step).toBeUndefined();
  });

  it('refuses a line whose step or times are not of their shape, naming the line', () => {
    const bad = [
      '{"n":1,"input":{"type":"user_message","text":"x"},"seq":1,"at":5,"events":[],"step":[1,2]}',
      '{"n":1,"input":{"type":"user_message","text":"x"},"seq":1,"at":5,"events":[],"step":"1,2,3"}',
      '{"n":1,"seq":1,"at":5,"events":[],"step":[1,2,3]}',
      '{"n":1,"input":{"type":"user_message","text":"x"},"seq":1,"at":5,"events":[],"step":[1,2,3],"times":[5]}',
    ];
    for (const json of bad) {
      const check = new JournalCheck('/data/s.jsonl', { chained: true });
      expect(() => check.next(Buffer.from(sealLine(json, CHAIN_START).line)), json).toThrow(/^\/data\/s\.jsonl: line 1 has (a step|times) .* the journal is damaged/);
    }
  });

  it('the version-8 fixture (a real run) reads back the events it published, in half the bytes of the version-7 one; open gives the same recent events', async () => {
    const copy = fixtureInDataDir(tempDir(), 8);
    const read = await new LowdbStore(copy.dir).read(ID);
    expect(read.replayGap).toBeUndefined();
    expect(JSON.stringify(read.events)).toBe(JSON.stringify(published()));
    expect(read.records.every((r) => r.derived === undefined)).toBe(true);
    expect(readFileSync(join(FIXTURES, 'v8.jsonl')).length).toBeLessThan(readFileSync(join(FIXTURES, 'v7.jsonl')).length * 0.6);
    const opened = await new LowdbStore(copy.dir).open(ID, { recentEvents: 25 });
    expect(JSON.stringify(opened.recent)).toBe(JSON.stringify(published().slice(-25)));
    await opened.handle.close();
  });

  it('a version-7 session opens, keeps its old lines byte for byte, goes on in format 8 and reads back one seq after another', async () => {
    const copy = fixtureInDataDir(tempDir(), 7);
    const oldLines = readFileSync(copy.journal, 'utf8');
    const before = await new LowdbStore(copy.dir).read('fixture-v7');
    const session = await openSession({ store: new LowdbStore(copy.dir), resume: 'fixture-v7', model: new DemoModel(), team: studio(), env: ENV, clock: () => Date.UTC(2026, 0, 2) });
    session.send({ type: 'user_message', text: 'one more pass on the lighthouse, please' });
    await session.settled();
    const live = session.recent().filter((e) => e.seq > before.events.at(-1)!.seq);
    await session.stop();
    const text = readFileSync(copy.journal, 'utf8');
    expect(text.startsWith(oldLines)).toBe(true);
    expect(text.slice(oldLines.length)).toContain(`"step":[${ENGINE_SEMANTICS},`);
    const after = await new LowdbStore(copy.dir).read('fixture-v7');
    expect(JSON.stringify(after.events.slice(0, before.events.length))).toBe(JSON.stringify(before.events));
    expect(after.events.map((e) => e.seq)).toEqual(after.events.map((_, i) => i + 1));
    // What the session published is what a reader gets back.
    const added = after.events.slice(before.events.length);
    expect(JSON.stringify(added.slice(0, live.length))).toBe(JSON.stringify(live));
  });

  it('a line written under another semantics whose replay no longer matches: the reader makes up no event, says why in one line, shows the inputs; the session still resumes', async () => {
    const copy = fixtureInDataDir(tempDir(), 8);
    // As if an older engine had derived other kinds of event at line 6 (written under semantics 0).
    editJournal(copy, (line, n) => {
      if (n === 6) line.step = [0, (line.step as number[])[1]!, (line.step as number[])[2]! + 1];
    });
    const store = new LowdbStore(copy.dir);
    const read = await store.read(ID);
    expect(read.replayGap).toMatch(
      /^the events of steps from journal line 6 on are not shown: replaying its input derives other events than were published — it was written by a troupe whose engine derives events differently \(semantics 0; this troupe's is 1\)/,
    );
    // Lines 1-5 replayed; from line 6 on only what the lines store (usage, the calls started).
    const all = published();
    const firstMissing = read.records[5]!.derived!.seq;
    expect(JSON.stringify(read.events.filter((e) => e.seq < firstMissing))).toBe(JSON.stringify(all.filter((e) => e.seq < firstMissing)));
    expect(
      read.records
        .slice(5)
        .filter((r) => r.input)
        .every((r) => r.derived !== undefined && r.events.every((e) => e.type === 'usage' || e.type === 'agent_started')),
    ).toBe(true);
    const shown = renderShow({ ...read, state: stateAtJournalEnd(read, studio().def) }, studio().def);
    expect(shown).toContain(`! ${read.replayGap}`);
    const steps = shown.slice(shown.indexOf('Steps whose events are not shown (their inputs):') + 1);
    expect(steps[0]).toMatch(/^ {2}\[step 6\] agent completed — .+ — directive [A-Z_]+/);
    const md = renderMarkdown({ ...read, state: stateAtJournalEnd(read, studio().def) }, studio().def);
    expect(md).toContain(`> **note:** ${read.replayGap}`);
    expect(md).toMatch(/^- \[step 6\] agent completed — /m);
    // Resuming works from the checkpoint, and goes on after the last seq the journal holds, derived ones included.
    const session = await openSession({ store: new LowdbStore(copy.dir), resume: ID, model: new DemoModel(), team: studio(), env: ENV, clock: () => Date.UTC(2026, 0, 2) });
    session.send({ type: 'user_message', text: 'one more pass on the lighthouse, please' });
    await session.settled();
    const next = session
      .recent()
      .filter((e) => e.type === 'user_input')
      .at(-1)!;
    await session.stop();
    // Without the derived seqs the tail's last one is a usage's or a call's: the next event would reuse a seq.
    expect(next.seq).toBeGreaterThan(all.at(-1)!.seq);
  });

  it('a session whose team cannot be opened: the reader says so in one line and keeps what the lines store', async () => {
    const copy = fixtureInDataDir(tempDir(), 8);
    const doc = JSON.parse(readFileSync(copy.path, 'utf8'));
    doc.team.dir = join(copy.dir, 'no-such-team');
    writeFileSync(copy.path, JSON.stringify(doc));
    const read = await new LowdbStore(copy.dir).read(ID);
    expect(read.replayGap).toMatch(/from journal line 1 on are not shown: the team in .*no-such-team cannot be opened/);
    // Of a step's line, only what it stores: the usage before it and the calls it starts (a line of facts keeps its own).
    expect(read.records.filter((r) => r.input).every((r) => r.events.every((e) => e.type === 'usage' || e.type === 'agent_started'))).toBe(true);
    expect(read.records).toHaveLength(doc.checkpoint.records);
  });

  it('a fork of a session whose lines no longer replay carries where their events go: it shows the same gap, loses nothing', async () => {
    const copy = fixtureInDataDir(tempDir(), 8);
    editJournal(copy, (line, n) => {
      if (n === 6) line.step = [0, (line.step as number[])[1]!, (line.step as number[])[2]! + 1];
    });
    const store = new LowdbStore(copy.dir);
    await forkSession(store, { from: ID, step: 9, id: 'forked', now: '2026-01-03T00:00:00.000Z' });
    const stepOf = (id: string) =>
      readFileSync(join(copy.dir, 'sessions', `${id}.jsonl`), 'utf8')
        .trimEnd()
        .split('\n')
        .slice(5, 9)
        .map((l) => (JSON.parse(l) as { step?: unknown }).step);
    expect(stepOf('forked')).toEqual(stepOf(ID));
    const fork = await store.read('forked');
    expect(fork.replayGap).toMatch(/from journal line 6 on/);
    expect(fork.records.slice(5).map((r) => r.derived?.seq)).toEqual((await store.read(ID)).records.slice(5, 9).map((r) => r.derived?.seq));
  });

  it('a fork at a step replays as its source did up to there', async () => {
    const copy = fixtureInDataDir(tempDir(), 8);
    const store = new LowdbStore(copy.dir);
    await forkSession(store, { from: ID, step: 9, id: 'forked', now: '2026-01-03T00:00:00.000Z' });
    const source = await store.read(ID);
    const fork = await store.read('forked');
    expect(fork.replayGap).toBeUndefined();
    const upTo = source.records.slice(0, 9).flatMap((r) => r.events);
    expect(JSON.stringify(fork.events.map(({ session_id: _s, ...e }) => e))).toBe(JSON.stringify(upTo.map(({ session_id: _s, ...e }) => e)));
  });
});

describe('journal format 8: a journal replays with the machine that wrote it (issue 23, item 6)', () => {
  it('a team edited after the session ran: show gives the history it had, from the machine its journal records', async () => {
    const dir = tempDir();
    const team = copiedTeam(dir);
    const published = await demoRun(dir, team, 'edited');
    expect(published.some((e) => e.type === 'transition' && (e as { to?: string }).to === 'TECHNICAL.lead_engineer')).toBe(true);
    editPersona(team, 'game_designer', dropLeadEngineer);
    const read = await new LowdbStore(dir).read('edited');
    expect(read.replayGap).toBeUndefined();
    expect(JSON.stringify(read.events.slice(0, published.length))).toBe(JSON.stringify(published));
    // Line 1 holds the team config the session was compiled from.
    const first = JSON.parse(readFileSync(join(dir, 'sessions', 'edited.jsonl'), 'utf8').split('\n')[0]!) as { machine?: { team?: { personas?: unknown[] } } };
    expect(first.machine?.team?.personas).toHaveLength(8);
  });

  it('without its machine line (as before them) the edited team replays another winner: the digest of the routing fields tells, and nothing is made up', async () => {
    const dir = tempDir();
    const team = copiedTeam(dir);
    const published = await demoRun(dir, team, 'edited');
    editPersona(team, 'game_designer', dropLeadEngineer);
    const copy = await editable(dir, 'edited');
    editJournal(copy, (line) => {
      delete line.machine;
    });
    const read = await new LowdbStore(dir).read('edited');
    // The arbitration at the game designer's answer names another winner (its event types are the same).
    expect(read.replayGap).toMatch(/^the events of steps from journal line \d+ on are not shown: replaying its input derives other events than were published/);
    const gapLine = Number(/journal line (\d+)/.exec(read.replayGap!)![1]);
    const firstMissing = read.records[gapLine - 1]!.derived!.seq;
    expect(JSON.stringify(read.events.filter((e) => e.seq < firstMissing))).toBe(JSON.stringify(published.filter((e) => e.seq < firstMissing)));
    expect(read.events.some((e) => e.type === 'transition' && (e as { to?: string }).to !== 'TECHNICAL.lead_engineer' && e.seq >= firstMissing)).toBe(false);
  });

  it('a resume with another --max-turns: the lines after it replay with that limit, those before with the first', async () => {
    const dir = tempDir();
    const team = copiedTeam(dir);
    const first = await demoRun(dir, team, 'limits', 3);
    expect((await new LowdbStore(dir).read('limits')).doc.checkpoint.snapshot.turn).toBe(3);
    const session = await openSession({ store: new LowdbStore(dir), resume: 'limits', team, model: new DemoModel(), env: ENV, clock: fixedClock(), memory: false, maxTurns: 6 });
    session.send({ type: 'user_message', text: 'go on, please' });
    await session.settled();
    const after = session.recent().filter((e) => e.seq > first.at(-1)!.seq);
    const turns = session.getSnapshot().turn;
    await session.stop();
    // Six turns after the user's message (the limit counts turns since the user spoke): replayed with the limit the
    // session was created with, its steps after the resume would pause after three.
    expect(turns).toBe(9);
    const read = await new LowdbStore(dir).read('limits');
    expect(read.replayGap).toBeUndefined();
    expect(JSON.stringify(read.events.slice(0, first.length))).toBe(JSON.stringify(first));
    expect(JSON.stringify(read.events.filter((e) => e.seq > first.at(-1)!.seq).slice(0, after.length))).toBe(JSON.stringify(after));
    // The second machine line names the first's team config (unchanged) and records the new limit.
    const machines = read.records.filter((r) => r.machine).map((r) => r.machine!);
    expect(machines).toHaveLength(2);
    expect(machines[1]).toEqual({ source: machines[0]!.source, maxTurns: 6, team: 1 });
  });

  it('a resume with the same team and limit records no machine line', async () => {
    const dir = tempDir();
    const team = copiedTeam(dir);
    await demoRun(dir, team, 'same');
    const session = await openSession({ store: new LowdbStore(dir), resume: 'same', team, model: new DemoModel(), env: ENV, clock: fixedClock(), memory: false });
    await session.stop();
    expect((await new LowdbStore(dir).read('same')).records.filter((r) => r.machine)).toHaveLength(1);
  });

  it('a forged digest (of the current version) is a gap from its line, and a hand-edited machine line replays nothing after it', async () => {
    const dir = tempDir();
    const team = copiedTeam(dir);
    await demoRun(dir, team, 'forged');
    const copy = await editable(dir, 'forged');
    editJournal(copy, (line, n) => {
      if (n === 6) {
        const step = line.step as number[];
        expect(step[3]).toBe(DIGEST_VERSION);
        line.step = [step[0]!, step[1]!, (step[2]! ^ 1) >>> 0, step[3]!];
      }
    });
    expect((await new LowdbStore(dir).read('forged')).replayGap).toMatch(/from journal line 6 on are not shown: replaying its input derives other events than were published/);
    editJournal(copy, (line, n) => {
      if (n === 6) line.step = [(line.step as number[])[0]!, (line.step as number[])[1]!, ((line.step as number[])[2]! ^ 1) >>> 0, DIGEST_VERSION];
      if (n === 1) (line.machine as { team: { personas: unknown } }).team.personas = 'not a list';
    });
    expect((await new LowdbStore(dir).read('forged')).replayGap).toMatch(/from journal line 2 on are not shown: the team recorded at journal line 1 cannot be compiled/);
  });

  it('the version-2 digest tells another target apart where the version-1 digest (event types) cannot', () => {
    const at = (to: string) => [{ type: 'transition', from: 'CREATIVE.game_designer', to, reason: 'APPROVE_AND_HANDOFF', kind: 'agent', session_id: 's', seq: 3, at: 9 }];
    expect(derivedDigest(at('TECHNICAL.lead_engineer'), 0, 1, 1)).toBe(derivedDigest(at('STRATEGIC.ceo'), 0, 1, 1));
    expect(derivedDigest(at('TECHNICAL.lead_engineer'))).not.toBe(derivedDigest(at('STRATEGIC.ceo')));
    // The envelope is not hashed: the same event stamped elsewhere has the same digest.
    expect(derivedDigest([{ ...at('x')[0]!, seq: 4, at: 10, session_id: 't' }])).toBe(derivedDigest(at('x')));
  });

  it('the version-3 digest hashes the same fields as version 2, each string once per text: built another way it is the same, another one is not', () => {
    expect(DIGEST_VERSION).toBe(3);
    const event = (to: string, score: number, text: string) => ({ type: 'transition', from: 'S.a', to, reason: text, kind: 'agent', score, ok: true, session_id: 's', seq: 1, at: 2 });
    const long = 'a reason longer than the sixty-four characters a hash is remembered for, told apart at its start';
    const base = derivedDigest([event('S.b', 0.25, long)], 0, 1, 3);
    // The same texts built at run time (other string objects, other representations) give the same digest, many times over.
    for (let i = 0; i < 3; i++) expect(derivedDigest([event(['S', 'b'].join('.'), 0.25, `${long.slice(0, 40)}${long.slice(40)}`)], 0, 1, 3)).toBe(base);
    expect(derivedDigest([event('S.c', 0.25, long)], 0, 1, 3)).not.toBe(base);
    expect(derivedDigest([event('S.b', 0.5, long)], 0, 1, 3)).not.toBe(base);
    expect(derivedDigest([event('S.b', 0.25, `x${long}`)], 0, 1, 3)).not.toBe(base);
    expect(derivedDigest([{ ...event('S.b', 0.25, long), ok: false }], 0, 1, 3)).not.toBe(base);
    // Only a string's first 32 characters count, as in version 2.
    expect(derivedDigest([event('S.b', 0.25, `${long.slice(0, 32)}, and then something else`)], 0, 1, 3)).toBe(base);
    // More strings than the memo holds: it is cleared, and every digest stays what it was.
    const before = derivedDigest([event('S.b', 0.25, 'short reason')], 0, 1, 3);
    for (let i = 0; i < 5000; i++) derivedDigest([event(`S.p${i}`, 0.25, `reason ${i}`)], 0, 1, 3);
    expect(derivedDigest([event('S.b', 0.25, 'short reason')], 0, 1, 3)).toBe(before);
    // Version 2 is unchanged: its lines (written before version 3) are still checked with it.
    expect(derivedDigest([event('S.b', 0.25, long)], 0, 1, 2)).not.toBe(base);
  });
});
