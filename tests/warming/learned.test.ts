import { describe, expect, it } from 'vitest';
import { DIRECTIVE_TOOL_NAME } from '../../src/directive/schema.js';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/llm/chat-model.js';
import { openSession } from '../../src/session/open-session.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { foldStoredTail } from '../../src/session/stored-tail.js';
import { learnedFrom, learnTransitions } from '../../src/warming/learned.js';
import { predictNext } from '../../src/warming/predict.js';
import { countTransitions, TransitionCounts } from '../../src/warming/transitions.js';
import { initialState } from '../../src/engine/step.js';
import { agentById } from '../../src/engine/definition.js';
import type { AgentCall } from '../../src/engine/moves.js';
import { studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const ENV = { TROUPE_MODEL: 'test-model' };
const temp = tempDirPerTest('troupe-learned-');
const team = studio({ maxTurns: 50 });
// Stored sessions made as fixtures do not learn themselves (no prediction reads the store while they run).
const quiet = studio({ maxTurns: 50 });
quiet.loaded.team.warming = { ...quiet.loaded.team.warming, mode: 'off' };
// Routes that go back and forth are the point here: loop detection stays out of the way.
for (const t of [team, quiet]) t.def.limits = { ...t.def.limits, ping_pong: 1000 };

/** Plays handoffs along `route` (persona ids), streaming each answer and answering after the next task, then asks the user. */
function routeModel(route: string[]): ChatModel {
  let n = 0;
  return {
    label: 'route',
    async generate(request: ChatRequest): Promise<ChatResponse> {
      const i = n++;
      const next = route[i + 1];
      request.onDelta?.({ type: 'text', text: `Turn ${i + 1}.` });
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      const directive = next ? { transition: 'HANDOFF_TO_AGENT', next_agent: next } : { transition: 'RESPOND_TO_USER' };
      return { text: `Turn ${i + 1}.`, toolCalls: [{ name: DIRECTIVE_TOOL_NAME, arguments: JSON.stringify(directive) }], usage: null, finishReason: 'tool_calls', model: request.model };
    },
  };
}

/** Records the store's reads (whole sessions: their events) and listings. */
function spy(store: MemoryStore): { reads: string[]; lists: number[] } {
  const out = { reads: [] as string[], lists: [] as number[] };
  const read = store.read.bind(store);
  const list = store.list.bind(store);
  store.read = (id) => {
    out.reads.push(id);
    return read(id);
  };
  store.list = () => {
    out.lists.push(1);
    return list();
  };
  return out;
}

async function stored(store: MemoryStore, id: string, route: string[], learning = false): Promise<TroupeEvent[]> {
  const session = await openSession({ team: learning ? team : quiet, model: routeModel(route), store, id, env: ENV, memory: false });
  const events: TroupeEvent[] = [];
  session.subscribe((e) => events.push(e));
  session.start('A lighthouse keeper game');
  await session.settled();
  await session.stop({ reason: 'test' });
  return events;
}

describe("transitions learned from the team's stored sessions (seed 004: learning from conversation patterns)", () => {
  it('counts who followed whom in the stored sessions of the same team, without the session asking', async () => {
    const store = new MemoryStore();
    await stored(store, 'one', ['creative_partner', 'cfo', 'creative_partner', 'cfo']);
    await stored(store, 'two', ['creative_partner', 'cfo']);
    expect((await learnTransitions(store, team.def, null)).toJSON()).toEqual({ creative_partner: { cfo: 3 }, cfo: { creative_partner: 1 } });
    expect((await learnTransitions(store, team.def, 'one')).toJSON()).toEqual({ creative_partner: { cfo: 1 } });
    const other = { ...team.def, name: 'Another Team' };
    expect((await learnTransitions(store, other, null)).toJSON()).toEqual({});
  });

  it('is listed once per store and team in the background (null until then), and no session is read', async () => {
    const store = new MemoryStore();
    await stored(store, 'one', ['creative_partner', 'cfo']);
    const { reads, lists } = spy(store);
    const learned = learnedFrom(store, team.def, 'new');
    expect(learned()).toBeNull();
    await new Promise((r) => setTimeout(r, 0));
    await new Promise((r) => setImmediate(r));
    expect(learned()?.toJSON()).toEqual({ creative_partner: { cfo: 1 } });
    expect(learnedFrom(store, team.def, 'other')()?.toJSON()).toEqual({ creative_partner: { cfo: 1 } });
    expect({ reads: reads.length, lists: lists.length }).toEqual({ reads: 0, lists: 1 });
  });

  it("learns from two stored sessions' checkpointed counts without reading any events, as the old reader of their events did", async () => {
    const store = new MemoryStore();
    await stored(store, 'one', ['creative_partner', 'cfo', 'creative_partner', 'game_designer', 'creative_partner', 'cfo']);
    await stored(store, 'two', ['creative_partner', 'cfo', 'creative_partner', 'cfo']);
    // What the reader before this one learned: every transition event of each stored session's events.
    const old = new TransitionCounts();
    for (const id of ['one', 'two']) countTransitions(team.def, (await store.read(id)).events, old);
    const { reads } = spy(store);
    const learned = learnedFrom(store, team.def, 'three');
    learned();
    await new Promise((r) => setTimeout(r, 0));
    const now = learned();
    expect(reads).toEqual([]);
    expect(now?.toJSON()).toEqual(old.toJSON());
    expect(old.toJSON()).toEqual({ creative_partner: { cfo: 4, game_designer: 1 }, cfo: { creative_partner: 2 }, game_designer: { creative_partner: 1 } });
    // And so the predictions at a turn of a new session are the same.
    const call: AgentCall = {
      turnId: 't1',
      persona: 'creative_partner',
      path: agentById(team.def, 'creative_partner')!.path,
      attempt: 1,
      inbox: { kind: 'handoff', from: 'cfo', text: 'Over to you.', approved: false },
    };
    const state = { ...initialState(team.def, { id: 'three', mode: 'fsm' }), status: 'running' as const, active: 'creative_partner', inFlight: call };
    const own = new TransitionCounts();
    expect(predictNext({ def: team.def, state, call, own, learned: now })).toEqual(predictNext({ def: team.def, state, call, own, learned: old }));
    expect(predictNext({ def: team.def, state, call, own, learned: now })[0]).toMatchObject({ persona: 'cfo', history: 0.8 });
  });

  it('a reopened session goes on counting from its checkpoint (and the journal after it), not from its newest events only', async () => {
    const store = new MemoryStore();
    await stored(store, 'one', ['creative_partner', 'cfo', 'creative_partner', 'cfo', 'creative_partner']);
    const resumed = await openSession({ team: quiet, model: routeModel(['creative_partner', 'game_designer']), store, resume: 'one', env: ENV, memory: false, recentEvents: 3 });
    resumed.send({ type: 'user_message', text: 'Go on.' });
    await resumed.settled();
    await resumed.stop({ reason: 'test' });
    const doc = JSON.parse(store.copy('one').doc) as { checkpoint: { transitions?: unknown } };
    expect(doc.checkpoint.transitions).toEqual({ creative_partner: { cfo: 2, game_designer: 1 }, cfo: { creative_partner: 2 } });
  });

  it("learns from the checkpoints' counts alone: no open session's journal lines after its checkpoint are folded for it", async () => {
    // A busy server's first session of a team listed the store to learn, folding every open session's last lines.
    const folds: string[] = [];
    const store = new LowdbStore(temp(), { foldTail: async (doc, tail) => (folds.push(doc.id), foldStoredTail(doc, tail)) });
    const open = await openSession({ team: quiet, model: routeModel(['creative_partner', 'cfo', 'creative_partner']), store, id: 'open', env: ENV, memory: false });
    open.start('A lighthouse keeper game');
    await open.settled();
    const learned = await learnTransitions(store, team.def, null);
    expect(folds).toEqual([]);
    // What its checkpoint holds (the document may be up to 31 lines behind an open session's journal): here, as created.
    expect(learned.toJSON()).toEqual({});
    // A listing folds them: the session had lines after its checkpoint to fold.
    expect((await store.list()).length).toBe(1);
    expect(folds).toEqual(['open']);
    await open.stop({ reason: 'test' });
  });

  it('a stored session without counts (stored before they were kept) teaches nothing, and is not read', async () => {
    const store = new MemoryStore();
    await stored(store, 'old', ['creative_partner', 'cfo']);
    const copy = store.copy('old');
    const doc = JSON.parse(copy.doc) as { checkpoint: { transitions?: unknown } };
    expect(doc.checkpoint.transitions).toEqual({ creative_partner: { cfo: 1 } });
    delete doc.checkpoint.transitions;
    const before = MemoryStore.from({ old: { ...copy, doc: JSON.stringify(doc) } });
    const { reads } = spy(before);
    expect((await learnTransitions(before, team.def, null)).toJSON()).toEqual({});
    expect(reads).toEqual([]);
  });

  it('a new session predicts with what the team did before, from its second turn', async () => {
    const store = new MemoryStore();
    await stored(store, 'before', ['creative_partner', 'cfo', 'creative_partner', 'cfo', 'creative_partner', 'cfo']);
    const events = await stored(store, 'now', ['creative_partner', 'game_designer', 'creative_partner', 'game_designer'], true);
    const predictions = events.filter((e): e is Extract<TroupeEvent, { type: 'prediction' }> => e.type === 'prediction');
    // Turn 1: nothing learned yet (stored sessions are read once the first answer is in).
    expect(predictions[0]!.predictions.every((p) => p.history === 0)).toBe(true);
    // Turn 3 (the creative partner again): the stored session's creative partner -> CFO, against this session's one -> game designer, counted three times.
    const third = predictions[2]!;
    expect(third.persona).toBe('creative_partner');
    expect(third.predictions.find((p) => p.persona === 'cfo')?.history).toBeCloseTo(3 / 6, 3);
    expect(third.predictions.find((p) => p.persona === 'game_designer')?.history).toBeCloseTo(3 / 6, 3);
    // Once it ended, what it did is known to the team's next session in this process, without reading the store again.
    const { reads, lists } = spy(store);
    expect(learnedFrom(store, team.def, 'later')()?.toJSON()).toEqual({ creative_partner: { cfo: 3, game_designer: 2 }, cfo: { creative_partner: 2 }, game_designer: { creative_partner: 1 } });
    expect({ reads: reads.length, lists: lists.length }).toEqual({ reads: 0, lists: 0 });
  });
});
