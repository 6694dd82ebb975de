import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { deliverablesOf } from '../../src/report/deliverables.js';
import { displayNames } from '../../src/report/display-items.js';
import { openSession } from '../../src/session/open-session.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import type { JournalRecord } from '../../src/store/session-file.js';
import { fixedClock, studio } from '../helpers/team.js';

const ENV = { TROUPE_MODEL: 'test-model' };

/** The demo team run to its first pause, approved, and run to its next pause. */
async function demoSession() {
  const store = new MemoryStore();
  const team = studio();
  const session = await openSession({ team, model: new DemoModel(), store, id: 's', env: ENV, clock: fixedClock(), memory: false });
  session.start('A lighthouse keeper game');
  await session.settled();
  session.send({ type: 'user_approve', command: { name: 'approve', args: [] } });
  await session.settled();
  await session.stop();
  return { read: await store.read('s'), names: displayNames(team.def) };
}

/** A journal line whose input is an agent's answer with the changes it reported (only what the document reads of it). */
const replied = (n: number, turnId: string, path: string, diff: string) =>
  ({ n, input: { type: 'agent_replied', turnId, changes: { files: [{ path, status: 'modified' }], diff } }, events: [] }) as unknown as JournalRecord;

const started = (seq: number, turn_id: string, persona: string, branch?: string) =>
  ({ type: 'agent_started', session_id: 's', seq, at: 0, turn_id, path: `implement.${branch}`, persona, attempt: 1, model: 'test-model', inbox: '', ...(branch ? { branch } : {}) }) as TroupeEvent;

describe("a session's deliverables", () => {
  it('a team session: its brief, the approvals, the last words of each persona by name, no workspaces', async () => {
    const { read, names } = await demoSession();
    const d = deliverablesOf({ doc: read.doc, events: read.events, records: read.records, names, workspaces: [] });
    expect(d).toMatchObject({ id: 's', kind: 'team', definition: 'V7 Studio', brief: 'A lighthouse keeper game', output: null, workspaces: [], forkedFrom: null });
    expect(d.decisions.approvals.some((a) => a.status === 'APPROVED' && a.by === 'You')).toBe(true);
    // One final text per persona that spoke, the last it said.
    const spoke = new Set(read.events.flatMap((e) => (e.type === 'agent_message' ? [e.persona] : [])));
    expect(new Set(d.finals.map((f) => f.persona))).toEqual(spoke);
    for (const f of d.finals) {
      const last = read.events.filter((e) => e.type === 'agent_message' && e.persona === f.persona).at(-1)!;
      expect(f).toMatchObject({ name: names.name(f.persona), text: (last as { text: string }).text, turn: (last as { turn: number }).turn });
    }
  });

  it("workspaces: a branch's latest reported changes, the ones still on disk with their path, a reported one gone from disk with none", async () => {
    const { read, names } = await demoSession();
    const events = [...read.events, started(9001, 'ta1', 'implementer_a', 'impl_a'), started(9002, 'tb1', 'implementer_b', 'impl_b'), started(9003, 'ta2', 'implementer_a', 'impl_a')];
    const n = read.records.length;
    const records = [
      ...read.records,
      replied(n + 1, 'ta1', 'a.ts', 'first'),
      replied(n + 2, 'tb1', 'b.ts', '+b'),
      replied(n + 3, 'ta2', 'a2.ts', '+a again'),
      replied(n + 4, 'unknown-turn', 'x.ts', '+x'),
    ];
    const onDisk = [
      { name: 'impl_a', dir: '/data/runs/s/workspaces/impl_a' },
      { name: 'impl_c', dir: '/data/runs/s/workspaces/impl_c' },
    ];
    const d = deliverablesOf({ doc: read.doc, events, records, names, workspaces: onDisk });
    expect(d.workspaces).toEqual([
      { name: 'impl_a', dir: '/data/runs/s/workspaces/impl_a', persona: 'implementer_a', branch: 'impl_a', files: [{ path: 'a2.ts', status: 'modified' }], diff: '+a again' },
      { name: 'impl_b', dir: null, persona: 'implementer_b', branch: 'impl_b', files: [{ path: 'b.ts', status: 'modified' }], diff: '+b' },
      { name: 'impl_c', dir: '/data/runs/s/workspaces/impl_c', files: [], diff: '' },
    ]);
  });

  it('a hand-edited log: malformed events are left out, the rest still makes the document', async () => {
    const { read, names } = await demoSession();
    const broken = [
      { type: 'approval', session_id: 's', seq: 9001, at: 0 },
      { type: 'agent_message', session_id: 's', seq: 9002, at: 0, persona: 'ceo', text: { not: 'a string' }, turn: 'x' },
      { type: 'session_ended', session_id: 's', seq: 9003, at: 0, reason: 42 },
    ] as unknown as TroupeEvent[];
    const clean = deliverablesOf({ doc: read.doc, events: read.events, records: read.records, names, workspaces: [] });
    const d = deliverablesOf({ doc: read.doc, events: [...read.events, ...broken], records: read.records, names, workspaces: [] });
    expect(d).toEqual(clean);
  });
});
