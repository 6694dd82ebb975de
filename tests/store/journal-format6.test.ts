// Journal format 6: one line per turn. A call's usage waits for the step its answer leads to and is written in
// that step's line (counted in `facts`), and the calls a step starts are announced (agent_started) in its line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { event } from '../../src/engine/event-map.js';
import { initialState } from '../../src/engine/step.js';
import { TroupeBus } from '../../src/kernel/bus.js';
import type { JournalPort } from '../../src/kernel/ports.js';
import { SessionKernel } from '../../src/kernel/session-kernel.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { CHAIN_START, sealLine } from '../../src/store/journal-chain.js';
import { JournalCheck } from '../../src/store/journal-check.js';
import { restoreRecord } from '../../src/store/journal-codec.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { SESSION_SCHEMA_VERSION } from '../../src/store/session-file.js';
import { REPO_ROOT, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { BRIEF, ENV } from './support.js';
import { storedDocumentText } from '../helpers/stored-document.js';

const FIXTURES = join(REPO_ROOT, 'tests', 'fixtures', 'sessions');
const tempDir = tempDirPerTest('troupe-format6-');
type Line = { n: number; input?: { type: string }; facts?: number; events: { type: string }[]; derived?: { count: number } };
// Each line's record as it reads back (from format 7 an event of a usual layout is stored as a row).
const linesOf = (path: string, id = 'one'): Line[] =>
  readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => restoreRecord(JSON.parse(l), id) as unknown as Line);
const usage = () => event('usage', { persona: 'cfo', model: 'm', prompt_tokens: 9, completion_tokens: 1, cost: null, total_tokens: 10, total_cost: null });

/** A kernel on the shipped team whose journal port notes every line it is given, and what its subscribers saw meanwhile. */
function kernelWithJournal() {
  const def = studio().def;
  const bus = new TroupeBus('k', () => 1);
  const lines: { kind: 'step' | 'facts'; types: string[]; facts: number; seenBefore: number }[] = [];
  const seen: TroupeEvent[] = [];
  const journal: JournalPort = {
    location: null,
    joinsFacts: true,
    step: (_input, events, _next, facts = 0) => void lines.push({ kind: 'step', types: events.map((e) => e.type), facts, seenBefore: seen.length }),
    facts: (events) => void lines.push({ kind: 'facts', types: events.map((e) => e.type), facts: 0, seenBefore: seen.length }),
    close: async () => {},
  };
  const kernel = new SessionKernel(def, initialState(def, { id: 'k' }), bus, journal);
  kernel.subscribe((e) => seen.push(e));
  return { kernel, lines, seen };
}

describe('journal format 6: one line per turn', () => {
  it('a team session writes one line per step: the answer’s usage first (its facts), the step’s events, then the call it starts', async () => {
    const dir = tempDir();
    const session = await openSession({ store: new LowdbStore(dir), team: studio(), teamDir: REPO_ROOT, model: new DemoModel(), id: 'one', brief: BRIEF, env: ENV, memory: false });
    session.start(BRIEF);
    await session.settled();
    await session.stop();
    const lines = linesOf(join(dir, 'sessions', 'one.jsonl'));
    const answers = lines.filter((l) => l.input?.type === 'agent_completed');
    expect(answers.length).toBeGreaterThanOrEqual(9);
    // No line of its own for a call going out or for its usage: every line is a step (the last, the close's note, aside).
    expect(lines.slice(0, -1).every((l) => l.input !== undefined)).toBe(true);
    for (const l of answers) {
      expect(l.facts).toBe(1);
      expect(l.events[0]!.type).toBe('usage');
      // From format 8 the step's own events (its agent_message first) are replayed, not stored: the line says how many.
      expect(l.derived!.count).toBeGreaterThan(0);
    }
    // The answers that hand over start the next call in the same line.
    expect(answers.filter((l) => l.events.at(-1)!.type === 'agent_started').length).toBe(answers.length - 1);
    // Read back, each line is one record holding the same events in seq order.
    const read = await new LowdbStore(dir).read('one');
    expect(read.records).toHaveLength(lines.length);
    for (const r of read.records.filter((r) => r.input?.type === 'agent_completed')) expect(r.events.map((e) => e.type).slice(0, 2)).toEqual(['usage', 'agent_message']);
    expect(read.events.map((e) => e.seq)).toEqual(read.events.map((_, i) => i + 1));
  });

  it('the version-6 fixture (a real run) reads back the events of the version-5 one, in the same order, in fewer lines', async () => {
    // Apart from their times: the fixture's clock moves a second per read, and a call's start is stamped with the step that starts it.
    const read = async (v: number) => {
      const dir = tempDir();
      const { mkdirSync, copyFileSync } = await import('node:fs');
      mkdirSync(join(dir, 'sessions'));
      for (const ext of ['json', 'jsonl']) copyFileSync(join(FIXTURES, `v${v}.${ext}`), join(dir, 'sessions', `fixture-v${v}.${ext}`));
      return (await new LowdbStore(dir).read(`fixture-v${v}`)).events.map(({ session_id: _s, at: _at, ...e }) => e);
    };
    expect(JSON.stringify(await read(6))).toBe(JSON.stringify(await read(5)));
    expect(linesOf(join(FIXTURES, 'v6.jsonl')).length).toBeLessThan(linesOf(join(FIXTURES, 'v5.jsonl')).length / 2);
  });

  it('a version-5 session opens, keeps its old lines byte for byte and goes on with one line per turn', async () => {
    const dir = tempDir();
    const { mkdirSync, copyFileSync, existsSync } = await import('node:fs');
    mkdirSync(join(dir, 'sessions'));
    const path = join(dir, 'sessions', 'fixture-v5.json');
    const journal = join(dir, 'sessions', 'fixture-v5.jsonl');
    copyFileSync(join(FIXTURES, 'v5.json'), path);
    copyFileSync(join(FIXTURES, 'v5.jsonl'), journal);
    const oldLines = readFileSync(journal, 'utf8');
    expect(oldLines).not.toContain('"facts"');
    const before = await new LowdbStore(dir).read('fixture-v5');
    const session = await openSession({ store: new LowdbStore(dir), resume: 'fixture-v5', model: new DemoModel(), team: studio(), env: ENV, clock: () => Date.UTC(2026, 0, 2) });
    session.send({ type: 'user_message', text: 'one more pass on the lighthouse, please' });
    await session.settled();
    const end = JSON.stringify(session.getSnapshot());
    await session.stop();
    expect(existsSync(`${path}.v5.bak`)).toBe(true);
    expect(JSON.parse(storedDocumentText(path)).schema).toBe(SESSION_SCHEMA_VERSION);
    const text = readFileSync(journal, 'utf8');
    expect(text.startsWith(oldLines)).toBe(true);
    const added = text.slice(oldLines.length).trimEnd().split('\n');
    expect(added.filter((l) => l.includes('"facts":1')).length).toBeGreaterThan(0);
    const after = await new LowdbStore(dir).read('fixture-v5');
    expect(JSON.stringify(after.events.slice(0, before.events.length))).toBe(JSON.stringify(before.events));
    expect(after.events.map((e) => e.seq)).toEqual(after.events.map((_, i) => i + 1));
    // And it opens again where it stopped, its old and new lines folded.
    const again = await openSession({ store: new LowdbStore(dir), resume: 'fixture-v5', model: new DemoModel(), team: studio(), env: ENV });
    expect(JSON.stringify(again.getSnapshot())).toBe(end);
    await again.stop();
  });

  it('refuses a line whose facts count does not fit its events, naming the line', () => {
    const check = (line: string) => () => new JournalCheck('/data/s.jsonl', { chained: true }).next(Buffer.from(sealLine(line, CHAIN_START).line));
    const input = '"input":{"type":"user_message","text":"hi"}';
    expect(check(`{"n":1,${input},"facts":1,"events":[{"type":"usage"},{"type":"user_input"}]}`)).not.toThrow();
    for (const facts of ['0', '3', '1.5', '"1"', '-1']) {
      expect(check(`{"n":1,${input},"facts":${facts},"events":[{"type":"usage"},{"type":"user_input"}]}`)).toThrow(/line 1 has a facts count that is not a number of its events before a step/);
    }
    expect(check('{"n":1,"facts":1,"events":[{"type":"usage"}]}')).toThrow(/line 1 has a facts count/);
  });
});

describe('the kernel holds a call’s usage for the step its answer leads to', () => {
  it('written in that step’s line, first, and delivered with it: nobody sees it before it is written', () => {
    const { kernel, lines, seen } = kernelWithJournal();
    kernel.publishBeforeStep(usage());
    expect(lines).toEqual([]);
    expect(seen).toEqual([]);
    kernel.send({ type: 'start', brief: 'a brief' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ kind: 'step', facts: 1, seenBefore: 0 });
    expect(lines[0]!.types[0]).toBe('usage');
    expect(seen.map((e) => e.type)).toEqual(lines[0]!.types);
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
  });

  it('with no step after it in this turn of the event loop, it is written on a line of its own, then delivered', async () => {
    const { kernel, lines, seen } = kernelWithJournal();
    kernel.publishBeforeStep(usage());
    await new Promise((r) => setImmediate(r));
    expect(lines).toEqual([{ kind: 'facts', types: ['usage'], facts: 0, seenBefore: 0 }]);
    expect(seen.map((e) => e.type)).toEqual(['usage']);
  });

  it('a fact or a live delta published after it writes it first: a reader never sees a later event before it', () => {
    const { kernel, lines, seen } = kernelWithJournal();
    kernel.publishBeforeStep(usage());
    kernel.publish(event('agent_delta', { turn_id: 't1', persona: 'cfo', text: 'x' }));
    expect(lines).toEqual([{ kind: 'facts', types: ['usage'], facts: 0, seenBefore: 0 }]);
    expect(seen.map((e) => e.type)).toEqual(['usage', 'agent_delta']);
    kernel.publishBeforeStep(usage());
    kernel.publish(event('note', { text: 'n' }));
    expect(lines[1]).toEqual({ kind: 'facts', types: ['usage', 'note'], facts: 0, seenBefore: 2 });
    expect(seen.map((e) => e.type)).toEqual(['usage', 'agent_delta', 'usage', 'note']);
  });

  it('settled() writes a held fact (a run reports its end with every usage in)', async () => {
    const { kernel, lines } = kernelWithJournal();
    kernel.publishBeforeStep(usage());
    await kernel.settled();
    expect(lines.map((l) => l.kind)).toEqual(['facts']);
  });
});
