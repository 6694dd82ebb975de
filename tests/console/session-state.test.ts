import { describe, expect, it } from 'vitest';
import { diffLines } from '../../src/console/diff.js';
import { layoutGraph, nodeOf } from '../../src/console/layout.js';
import { EMPTY, MAX_ENTRIES, reduce, atWork, followList, followStream, streamingNow, type EventState } from '../../src/console/session-state.js';
import { parseShown } from '../../src/console/shown-text.js';
import type { EventData, ListItem, SessionViewJson } from '../../src/console/types.js';
import { ACTIVE, ALL_HOSTILE, HOSTILE } from '../helpers/hostile-text.js';
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
  statusText: 'running',
  hosted: true,
  brief: 'add two numbers',
  turn: 4,
  state: [],
  active: null,
  awaiting: null,
  endReason: null,
  lastEventSeq: 9,
  usage: { calls: 0, tokens: 0, promptTokens: 0, completionTokens: 0, cost: null, unpricedCalls: 0, cachedTokens: 0, byPersona: {}, free: false },
  visits: {},
  branches: [],
  forkedFrom: null,
};

describe("the console's view of a stream", () => {
  const LINE: ListItem = { id: 's1', team: 'V7 Studio', workflow: null, brief: 'b', status: 'awaiting_user', statusText: 'waiting: complete', turns: 3, updatedAt: '', hosted: true };

  it('lists the open session as it shows it: a persona answering is running in the list too, its words with its class (the list said waiting: complete under a running badge)', () => {
    const other = { ...LINE, id: 's2' };
    const view = { ...VIEW, kind: 'team' as const, status: 'awaiting_user' as const, awaiting: { code: 'complete', reason: 'approve' } };
    const live = fold([ev('agent_started', { turn_id: 't1', persona: 'ceo', path: 'STRATEGIC.ceo' })]).live;
    const listed = followList([LINE, other], followStream(view, live));
    expect(listed).toEqual([{ ...LINE, status: 'running', statusText: 'running' }, other]);
    // Between turns the list's own line (status and words, from the server) stands until it is read again.
    expect(followList([LINE, other], followStream(view, {}))).toEqual([LINE, other]);
    expect(followList([LINE], null)).toEqual([LINE]);
  });

  it('a stored session that says running runs nowhere (its process stopped mid-turn): not at work, so not lit as running, and not listed as running by the console', () => {
    const interrupted = { ...VIEW, hosted: false };
    expect(atWork(interrupted)).toBe(false);
    expect(atWork(VIEW)).toBe(true);
    const line = { ...LINE, status: 'running' as const, statusText: 'interrupted', hosted: false };
    expect(followList([line], interrupted)).toEqual([line]);
    // Once a turn streams again, the server runs it.
    const live = fold([ev('agent_started', { turn_id: 't2', persona: 'implementer_a', branch: 'impl_a', path: 'implement.impl_a.work' })]).live;
    expect(atWork(followStream(interrupted, live))).toBe(true);
    // Continued: its line said interrupted (running in no server); it runs here now, so it says running (the status did not change, the server did).
    expect(followList([line], followStream(interrupted, live))).toEqual([{ ...line, statusText: 'running', hosted: true }]);
  });

  it('a turn the stored events begin and never finish is not answering when nothing runs the session (a page opened on it showed "running", "… is answering")', () => {
    const started = (n: number) => ({ type: 'agent_started', seq: n, at: 0, turn_id: `t${n}`, persona: 'game_designer' }) as EventData;
    const interrupted = { ...VIEW, hosted: false, statusText: 'interrupted', lastEventSeq: 40 };
    const stale = fold([started(40)]).live;
    expect(streamingNow(interrupted, stale)).toEqual({});
    expect(followStream(interrupted, streamingNow(interrupted, stale))).toBe(interrupted);
    // Begun after the view was read: the session was opened again, and streams.
    const fresh = fold([started(41)]).live;
    expect(streamingNow(interrupted, fresh)).toBe(fresh);
    expect(atWork(followStream(interrupted, streamingNow(interrupted, fresh)))).toBe(true);
    // Run by the server: whatever it began streams.
    expect(streamingNow(VIEW, stale)).toBe(stale);
  });

  it("reads the server's JSON with every string as the terminal shows it: no escape sequence, control character or bidi override left to act (tests/fixtures/terminal/hostile.json)", () => {
    const json = JSON.stringify({ type: 'agent_message', seq: 1, items: [{ kind: 'turn', who: HOSTILE.osc0_title, text: ALL_HOSTILE }], nested: [{ brief: HOSTILE.bidi_override }] });
    const read = parseShown(json) as { items: { who: string; text: string }[]; nested: { brief: string }[] };
    for (const s of [read.items[0]!.who, read.items[0]!.text, read.nested[0]!.brief]) expect(s).not.toMatch(ACTIVE);
    expect(read.nested[0]!.brief).toBe('user \\u202eexe.txt');
    expect(read.items[0]!.text).toContain('a\tb\nc');
    expect(parseShown('{"seq":3,"ok":true,"n":null}')).toEqual({ seq: 3, ok: true, n: null });
  });

  it('follows the stream ahead of the view: while turns stream the session is running and their states are lit, though the view read last still says the state before', () => {
    const view = { ...VIEW, status: 'awaiting_user' as const, state: ['review'], awaiting: { code: 'complete', reason: 'approve' } };
    const s = fold([
      ev('agent_started', { turn_id: 'r1', persona: 'implementer_a', branch: 'impl_a', path: 'revise.impl_a.work' }),
      ev('agent_started', { turn_id: 'r2', persona: 'implementer_b', branch: 'impl_b', path: 'revise.impl_b.work' }),
    ]);
    expect(followStream(view, s.live)).toEqual({ ...view, status: 'running', statusText: 'running', hosted: true, awaiting: null, state: ['review', 'revise.impl_a.work', 'revise.impl_b.work'] });
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
      impl_a: { turnId: 'a1', who: 'Implementer A', branch: 'impl_a', seq: expect.any(Number), text: 'one two' },
      impl_b: { turnId: 'b1', who: 'implementer_b', branch: 'impl_b', seq: expect.any(Number), text: 'uno ' },
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
