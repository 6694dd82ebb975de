import { describe, expect, it } from 'vitest';
import { diffLines } from '../../src/console/diff.js';
import { layoutGraph, nodeOf } from '../../src/console/layout.js';
import { EMPTY, MAX_ENTRIES, reduce, followStream, type EventState } from '../../src/console/session-state.js';
import type { EventData, SessionViewJson } from '../../src/console/types.js';
import { graphModel } from '../../src/report/graph-model.js';
import { loadWorkflowOrThrow } from '../../src/workflow/load/load-workflow.js';
import { compileWorkflow } from '../../src/workflow/run/compile.js';
import { REPO_ROOT, studio } from '../helpers/team.js';

// The console's pure parts: how it folds the stream into what it shows, and how it lays out the graph.
let seq = 0;
const ev = (type: string, fields: Record<string, unknown> = {}): EventData => ({ type, seq: type === 'agent_delta' ? 0 : ++seq, at: 0, ...fields });
const fold = (events: EventData[], from: EventState = EMPTY) => events.reduce(reduce, from);
const VIEW: SessionViewJson = {
  id: 's1',
  definition: 'implement_review_debate',
  kind: 'workflow',
  status: 'running',
  hosted: true,
  brief: 'add two numbers',
  turn: 4,
  state: [],
  active: null,
  awaiting: null,
  endReason: null,
  lastEventSeq: 9,
  usage: { calls: 0, tokens: 0, promptTokens: 0, completionTokens: 0, cost: null, unpricedCalls: 0, cachedTokens: 0, byPersona: {} },
  visits: {},
  branches: [],
  forkedFrom: null,
};

describe("the console's view of a stream", () => {
  it('follows the stream ahead of the view: while turns stream the session is running and their states are lit, though the view read last still says the state before', () => {
    const view = { ...VIEW, status: 'awaiting_user' as const, state: ['review'], awaiting: { code: 'complete', reason: 'approve' } };
    const s = fold([
      ev('agent_started', { turn_id: 'r1', persona: 'implementer_a', branch: 'impl_a', path: 'revise.impl_a.work' }),
      ev('agent_started', { turn_id: 'r2', persona: 'implementer_b', branch: 'impl_b', path: 'revise.impl_b.work' }),
    ]);
    expect(followStream(view, s.live)).toEqual({ ...view, status: 'running', awaiting: null, state: ['review', 'revise.impl_a.work', 'revise.impl_b.work'] });
    // Once the turns are over, the view is as it was read.
    const done = fold([ev('agent_message', { turn_id: 'r1', branch: 'impl_a' }), ev('agent_message', { turn_id: 'r2', branch: 'impl_b' })], s);
    expect(followStream(view, done.live)).toBe(view);
    const ended = { ...view, status: 'ended' as const };
    expect(followStream(ended, s.live)).toBe(ended);
  });

  it('streams words per branch at once, each into its own turn, and drops a live turn when its message arrives', () => {
    const s = fold([
      ev('agent_started', { turn_id: 'a1', persona: 'implementer_a', branch: 'impl_a', items: [{ kind: 'progress', who: 'Implementer A', text: '' }] }),
      ev('agent_started', { turn_id: 'b1', persona: 'implementer_b', branch: 'impl_b' }),
      ev('agent_delta', { turn_id: 'a1', branch: 'impl_a', text: 'one ' }),
      ev('agent_delta', { turn_id: 'b1', branch: 'impl_b', text: 'uno ' }),
      ev('agent_delta', { turn_id: 'a1', branch: 'impl_a', text: 'two' }),
      // A word of a turn that is no longer the branch's (a superseded attempt) is not shown.
      ev('agent_delta', { turn_id: 'old', branch: 'impl_b', text: 'stale' }),
    ]);
    expect(s.live).toEqual({
      impl_a: { turnId: 'a1', who: 'Implementer A', branch: 'impl_a', text: 'one two' },
      impl_b: { turnId: 'b1', who: 'implementer_b', branch: 'impl_b', text: 'uno ' },
    });
    const done = fold([ev('agent_message', { turn_id: 'a1', branch: 'impl_a', items: [{ kind: 'turn', who: 'Implementer A', text: 'one two' }] })], s);
    expect(Object.keys(done.live)).toEqual(['impl_b']);
    expect(done.entries.map((e) => e.text)).toEqual(['one two']);
  });

  it('deltas carry no seq and change no lastSeq; other events move it forward only', () => {
    const s = fold([ev('transition', { from: 'a', to: 'b' }), ev('agent_started', { turn_id: 't' }), ev('agent_delta', { turn_id: 't', text: 'x' })]);
    expect(s.lastSeq).toBe(seq);
    expect(s.moves).toEqual([{ from: 'a', to: 'b' }]);
    expect(reduce(s, { type: 'note', seq: 1, at: 0 }).lastSeq).toBe(seq);
  });

  it('counts approvals and reworks per persona, and forgets live turns, a question and a command asked when the session ends', () => {
    const s = fold([
      ev('approval', { of: 'ceo', status: 'APPROVED' }),
      ev('approval', { of: 'ceo', status: 'REQUEST_REWORK' }),
      ev('approval', { of: 'ceo', status: 'APPROVED' }),
      ev('command_approval', { phase: 'asked', command: 'npm test', persona: 'lead_engineer' }),
      ev('agent_started', { turn_id: 't' }),
      ev('session_ended', { reason: 'done' }),
    ]);
    expect(s.marks).toEqual({ ceo: { ok: 2, back: 1 } });
    expect(s).toMatchObject({ live: {}, asked: null, ended: true });
  });

  it(`keeps the newest ${MAX_ENTRIES} transcript entries of a long session`, () => {
    let s = EMPTY;
    for (let i = 0; i < MAX_ENTRIES + 50; i++) s = reduce(s, ev('note', { items: [{ kind: 'note', tone: 'info', text: `n${i}` }] }));
    expect(s.entries).toHaveLength(MAX_ENTRIES);
    expect(s.entries[0]!.text).toBe('n50');
    expect(new Set(s.entries.map((e) => e.key)).size).toBe(MAX_ENTRIES);
  });
});

describe("the console's graph layout and diffs", () => {
  it('places every node of a workflow inside its group box, and draws each transition and a way into each branch', () => {
    const graph = graphModel(compileWorkflow(loadWorkflowOrThrow('implement_review_debate', { cwd: REPO_ROOT, team: studio().loaded })));
    const placed = layoutGraph(graph);
    expect(placed.nodes.map((n) => n.id)).toEqual(graph.nodes.map((n) => n.id));
    for (const n of graph.nodes) {
      if (!n.group) continue;
      const node = placed.nodes.find((p) => p.id === n.id)!;
      const box = placed.groups.find((g) => g.id === n.group)!;
      expect(Math.abs(node.x - box.x) * 2).toBeLessThanOrEqual(box.w);
      expect(Math.abs(node.y - box.y) * 2).toBeLessThanOrEqual(box.h);
    }
    expect(placed.edges.filter((e) => !e.inner)).toHaveLength(graph.edges.length);
    const branches = graph.nodes.filter((n) => n.kind === 'branch');
    for (const b of branches) expect(placed.edges.some((e) => e.inner && e.to === b.id)).toBe(true);
    for (const e of placed.edges) expect(e.points.length).toBeGreaterThan(0);
  });

  it('a team draws no handoff until one is made; a state key lights the deepest node it is in', () => {
    const placed = layoutGraph(graphModel(studio().def));
    expect(placed.edges).toEqual([]);
    expect(placed.width).toBeGreaterThan(0);
    expect(nodeOf(['review', 'review.impl_a', 'reviewer'], 'review.impl_a.step')).toBe('review.impl_a');
    expect(nodeOf(['review'], 'reviewer')).toBe(null);
  });

  it('types the lines of a unified diff: file headers, hunks, added, removed, context and notes', () => {
    const lines = diffLines('--- a/x.ts\n+++ b/x.ts\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n\\ No newline at end of file\n');
    expect(lines.map((l) => l.kind)).toEqual(['file', 'file', 'hunk', 'ctx', 'del', 'add', 'note']);
  });
});
