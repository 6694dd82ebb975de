// The durability contract (README): what anyone saw is in the journal. A subscriber that gets an event before
// its line is written could show a step that a crash then loses.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { isLiveOnly } from '../../src/kernel/session-kernel.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { restoreRecord } from '../../src/store/journal-codec.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import type { JournalRecord } from '../../src/store/session-file.js';
import { loadWorkflowOrThrow } from '../../src/workflow/load/load-workflow.js';
import { REPO_ROOT, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const dataDir = tempDirPerTest('troupe-delivered-');
const ENV = { TROUPE_MODEL: 'test-model' };
const journalOf = (dir: string, id: string): JournalRecord[] =>
  readFileSync(join(dir, 'sessions', `${id}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => restoreRecord(JSON.parse(l) as Parameters<typeof restoreRecord>[0], id));
/** The seqs of the events the journal file holds now: stored, or derived from a written input (schema 8 replays them). */
const writtenSeqs = (dir: string, id: string) =>
  new Set(journalOf(dir, id).flatMap((r) => [...r.events.map((e) => e.seq), ...Array.from({ length: r.derived?.count ?? 0 }, (_, i) => r.derived!.seq + i)]));

/**
 * A subscriber that reads the journal file as each event reaches it: a stored event must be in the file
 * already, and a live one (a delta) must not come before a stored event that precedes it. Returns the
 * violations and how many events it checked.
 */
function watchDelivery(session: { subscribe(l: (e: TroupeEvent) => void): () => void }, dir: string, id: string) {
  const unwritten: string[] = [];
  let delivered = 0;
  let lastStored = 0;
  session.subscribe((e) => {
    if (e.type === 'error') return;
    delivered += 1;
    if (isLiveOnly(e.type)) {
      if (e.seq > lastStored && !writtenSeqs(dir, id).has(e.seq)) unwritten.push(`${e.type} after seq ${e.seq}, not yet written`);
      return;
    }
    if (!writtenSeqs(dir, id).has(e.seq)) unwritten.push(`${e.type} #${e.seq}`);
    lastStored = Math.max(lastStored, e.seq);
  });
  return { unwritten, delivered: () => delivered };
}

describe('what a reader sees is in the journal', () => {
  it('a team session with memory: every event a subscriber gets is in the journal file already when it gets it', async () => {
    const dir = dataDir();
    const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model: new DemoModel(), store: new LowdbStore(dir), id: 'seen', env: ENV });
    const watch = watchDelivery(session, dir, 'seen');
    session.start('A lighthouse keeper game');
    await session.settled();
    await session.settleMemory();
    expect(watch.delivered()).toBeGreaterThan(50);
    expect(watch.unwritten).toEqual([]);
    await session.stop();
  });
  it('a workflow fan-out (three implementers at once, then a debate): every event a subscriber sees is in the journal file already', async () => {
    const dir = dataDir();
    const plan = loadWorkflowOrThrow('implement_review_debate', { cwd: REPO_ROOT, team: studio().loaded });
    const session = await openSession({ team: studio(), teamDir: REPO_ROOT, workflow: plan, model: new DemoModel(), store: new LowdbStore(dir), id: 'fan', env: ENV, workspaceRoot: join(dir, 'run') });
    const watch = watchDelivery(session, dir, 'fan');
    const events: TroupeEvent[] = [];
    session.subscribe((e) => events.push(e));
    session.start('implement bech32 in Zig');
    await session.settled();
    expect(events.filter((e) => e.type === 'fanout').length).toBeGreaterThanOrEqual(1);
    expect(events.filter((e) => e.type === 'agent_message' && 'branch' in e && e.branch !== undefined).length).toBeGreaterThanOrEqual(3);
    expect(events.filter((e) => e.type === 'session_ended')).toHaveLength(1);
    expect(watch.unwritten).toEqual([]);
    await session.stop();
  });
});
