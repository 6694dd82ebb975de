// Prediction accuracy on recorded sessions: simulated studio sessions (bench/studio-sim.ts, a seeded team
// with hidden habits) and demo-model sessions are run and stored; then each stored session's journal is
// replayed step by step through the pure predictor, as a session would have predicted at each persona call
// (on the message it answers) and again on the first 300 characters of its answer; the truth is the persona
// of the next call. Learned transitions come from the sessions recorded before it (a team with a past).
import { DIRECTIVE_TOOL_NAME } from '../src/directive/schema.js';
import type { MachineDefinition } from '../src/engine/definition.js';
import type { TroupeEvent } from '../src/engine/event-map.js';
import { step } from '../src/engine/step.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import { DemoModel } from '../src/llm/demo-model.js';
import { openSession } from '../src/session/open-session.js';
import { MemoryStore } from '../src/store/memory-store.js';
import type { OpenTeam } from '../src/team/open-team.js';
import { learnTransitions } from '../src/warming/learned.js';
import { predictNext, type Prediction } from '../src/warming/predict.js';
import { REVISE_AT } from '../src/warming/session-warming.js';
import { TransitionCounts } from '../src/warming/transitions.js';
import { studio } from '../tests/helpers/team.js';
import { QUICK } from './stats.js';
import { studioAnswer, summaryAnswer } from './studio-sim.js';

const SESSIONS = QUICK ? 4 : 8;
const TURNS = QUICK ? 60 : 150;

/** The simulated studio as an in-process model (the same answers as the warming bench's server gives). */
function simModel(seed: number): ChatModel {
  let calls = 0;
  return {
    label: 'studio simulation',
    async generate(request: ChatRequest): Promise<ChatResponse> {
      if (request.meta.purpose === 'summary') return { text: summaryAnswer(request.messages.map((m) => m.content).join('\n')), toolCalls: [], usage: null, finishReason: 'stop', model: 'sim' };
      calls += 1;
      const inbox = request.messages.at(-1)!.content;
      const a = studioAnswer(seed, calls, request.meta.persona!, request.meta.handoffTo ?? [], inbox, /handed|approved/.test(inbox) ? 'someone' : null);
      return { text: a.text, toolCalls: [{ name: DIRECTIVE_TOOL_NAME, arguments: JSON.stringify(a.directive) }], usage: null, finishReason: 'tool_calls', model: 'sim' };
    },
  };
}

/** Runs and stores one session, answering the user whenever the team waits, until `turns` persona calls. */
async function record(store: MemoryStore, team: OpenTeam, id: string, model: ChatModel, turns: number, brief: string): Promise<void> {
  const session = await openSession({ team, model, store, id, env: { TROUPE_MODEL: 'sim' }, memory: false });
  let calls = 0;
  session.subscribe((e) => void (e.type === 'agent_started' && (calls += 1)));
  session.start(brief);
  for (let rounds = 0; calls < turns && rounds < turns; rounds++) {
    await session.settled();
    const s = session.getSnapshot();
    if (s.status !== 'awaiting_user') break;
    session.send({ type: 'user_message', text: 'Carry on with the plan.' });
  }
  await session.settled();
  await session.stop({ reason: 'recorded' });
}

type Score = { n: number; top1: number; top3: number };
const score = (): Score => ({ n: 0, top1: 0, top3: 0 });
function tally(s: Score, predictions: Prediction[], truth: string): void {
  s.n += 1;
  if (predictions[0]?.persona === truth) s.top1 += 1;
  if (predictions.slice(0, 3).some((p) => p.persona === truth)) s.top3 += 1;
}

type Variant = 'full' | 'no learned' | 'context + dependencies' | 'history only';
const VARIANTS: Variant[] = ['full', 'no learned', 'context + dependencies', 'history only'];

/** Replays a stored session's journal, predicting at each persona call as a live session would. */
async function replay(store: MemoryStore, def: MachineDefinition, id: string, learned: TransitionCounts, scores: Record<string, Score>, allowedShare: { sum: number; n: number }): Promise<void> {
  const stored = await store.read(id);
  let state = stored.doc.base;
  const own = new TransitionCounts();
  const none = new TransitionCounts();
  // Predictions made for the call in flight, waiting for the next call to be scored.
  let pending: Record<string, Prediction[]> | null = null;
  for (const record of stored.records) {
    const before = state;
    if (record.input?.type === 'user_message') pending = null;
    // The answer: predicted again on its first REVISE_AT characters, as the live session does once that much has streamed.
    if (record.input?.type === 'agent_completed' && before.inFlight?.turnId === record.input.turnId && pending && record.input.text.length >= REVISE_AT) {
      const answer = record.input.text.slice(0, REVISE_AT);
      pending.answer = predictNext({ def, state: before, call: before.inFlight, own, learned, answer });
    }
    if (record.input) state = step(def, state, record.input).session;
    for (const e of record.events as unknown as TroupeEvent[]) own.addEvent(def, e);
    const call = state.inFlight;
    if (!call || call.turnId === before.inFlight?.turnId || call.attempt !== 1) continue;
    if (pending) {
      for (const [name, predictions] of Object.entries(pending)) tally((scores[name] ??= score()), predictions, call.persona);
      const from = def.agentIndex.get(before.active ?? '')?.allowed;
      if (from) (allowedShare.sum += 1 / from.size), (allowedShare.n += 1);
    }
    const input = { def, state, call };
    pending = {
      full: predictNext({ ...input, own, learned }),
      'no learned': predictNext({ ...input, own, learned: null }),
      'context + dependencies': predictNext({ ...input, own: none, learned: null }),
      'history only': historyOnly(own, learned, call.persona),
    };
  }
}

/** The baseline "who followed this persona most often" (this session's counts three times the learned ones). */
function historyOnly(own: TransitionCounts, learned: TransitionCounts, from: string): Prediction[] {
  const ids = new Set([...own.followers(from), ...learned.followers(from)]);
  return [...ids].map((id) => ({ persona: id, confidence: 3 * own.count(from, id) + learned.count(from, id), history: 0, context: 0, dependency: 0 })).sort((a, b) => b.confidence - a.confidence);
}

async function measure(label: string, team: OpenTeam, ids: string[], store: MemoryStore): Promise<void> {
  const scores: Record<string, Score> = {};
  const allowed = { sum: 0, n: 0 };
  for (const [k, id] of ids.entries()) {
    // Learned from the sessions stored before this one (the team's past), as a new session would read them.
    const learned = k === 0 ? new TransitionCounts() : await learnTransitions(storeOf(store, ids.slice(0, k)), team.def, null);
    await replay(store, team.def, id, learned, scores, allowed);
  }
  const pct = (s: Score | undefined, key: 'top1' | 'top3') => (s?.n ? `${((100 * s[key]) / s.n).toFixed(0)}%` : '—');
  process.stdout.write(
    `  ${label}: ${scores.full?.n ?? 0} predictions over ${ids.length} recorded sessions (a random allowed persona would be right ${allowed.n ? ((100 * allowed.sum) / allowed.n).toFixed(0) : '—'}% of the time)\n`,
  );
  process.stdout.write(`    ${'predictor'.padEnd(40)} ${'top-1'.padStart(6)} ${'top-3'.padStart(6)}\n`);
  process.stdout.write(
    `    ${'on the answer (first 300 characters)'.padEnd(40)} ${pct(scores.answer, 'top1').padStart(6)} ${pct(scores.answer, 'top3').padStart(6)}   (${scores.answer?.n ?? 0} answers that long)\n`,
  );
  for (const v of VARIANTS) process.stdout.write(`    ${`on the inbox, ${v}`.padEnd(40)} ${pct(scores[v], 'top1').padStart(6)} ${pct(scores[v], 'top3').padStart(6)}\n`);
}

/** A store holding copies of some sessions of another. */
function storeOf(from: MemoryStore, ids: string[]): MemoryStore {
  return MemoryStore.from(Object.fromEntries(ids.map((id) => [id, from.copy(id)])));
}

/** Prints top-1 / top-3 accuracy of the predictor on recorded sessions, with and without each signal. */
export default async function predictionBench(): Promise<void> {
  // Each session stops at TURNS persona turns (max_turns pauses it, and the recording ends there).
  const team = studio({ maxTurns: TURNS });
  team.loaded.team.warming = { ...team.loaded.team.warming, mode: 'off' };
  const sim = new MemoryStore();
  const simIds: string[] = [];
  for (let seed = 1; seed <= SESSIONS; seed++) {
    const id = `sim-${seed}`;
    await record(sim, team, id, simModel(seed), TURNS, 'A lighthouse keeper game: one island, one lamp, the storm season.');
    simIds.push(id);
  }
  const demo = new MemoryStore();
  const demoIds: string[] = [];
  for (const [i, brief] of ['A lighthouse keeper game', 'A cozy farming game on a floating island', 'A detective game in a city of clocks'].entries()) {
    const id = `demo-${i}`;
    await record(demo, team, id, new DemoModel(), 40, brief);
    demoIds.push(id);
  }
  process.stdout.write('who speaks next, predicted at each persona call, on journals replayed through the pure predictor (learned transitions from the sessions recorded before each):\n');
  await measure(`simulated studio (${TURNS} turns each)`, team, simIds, sim);
  await measure('demo model (its scripted story, replies "Carry on with the plan." when asked)', team, demoIds, demo);
}
