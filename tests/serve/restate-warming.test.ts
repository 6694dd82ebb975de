import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { RestateCluster, type StreamedEvent } from '../helpers/restate-cluster.js';
import { TaggedScript } from '../helpers/tagged-script.js';

// State warming on Restate: a session's own transitions survive between its invocations, the team's later
// sessions learn them (troupe_learning), and the prediction of who speaks next reaches readers live.
// Session A: Creative Partner -> Game Designer, then the user; after a reply, someone -> Lead Engineer.
// Session B (created after): Creative Partner asks the user twice; its readers see the predictions.
const script = new TaggedScript({
  'learn-a': [{ next: 'game_designer' }, { transition: 'RESPOND_TO_USER' }, { next: 'lead_engineer' }, { transition: 'RESPOND_TO_USER' }],
  'learn-b': [{ transition: 'RESPOND_TO_USER' }, { transition: 'RESPOND_TO_USER' }],
});
const waits = (n: number) => (events: TroupeEvent[]) => events.filter((e) => e.type === 'awaiting_user').length >= n;
let cluster: RestateCluster;

beforeAll(async () => {
  cluster = await RestateCluster.start(script, 1);
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

type Prediction = StreamedEvent & { persona: string; predictions: { persona: string; history: number }[] };

describe('state warming on Restate', () => {
  it("keeps a session's transitions between invocations, teaches them to the team's later sessions, and streams predictions", async () => {
    const a = await cluster.create('A lighthouse keeper game [[tag learn-a]]');
    await cluster.stream(a, waits(1));
    expect((await cluster.call(`/v1/sessions/${a}/input`, { json: { text: 'Go on with the build plan' } })).status).toBe(202);
    await cluster.stream(a, waits(2));
    // A's second invocation sent its counts to troupe_learning; B, created now, reads them once.
    const b = await cluster.create('A lighthouse keeper game [[tag learn-b]]');
    const first = await cluster.stream(b, waits(1));
    // Connected before the input goes in: predictions are live-only, so a reader that connects later misses them.
    const reading = await cluster.connect(b, first.filter((e) => e.id).at(-1)!.id);
    expect((await cluster.call(`/v1/sessions/${b}/input`, { json: { text: 'Tell me more' } })).status).toBe(202);
    const second = await reading.read(waits(1));
    const predictions = second.filter((e): e is Prediction => e.type === 'prediction' && (e as Prediction).persona === 'creative_partner');
    expect(predictions.length).toBeGreaterThan(0);
    // Live-only: no id, so a reader never resumes from one.
    expect(predictions.every((p) => p.id === undefined)).toBe(true);
    // B never saw Creative Partner hand to Game Designer: A did, in its first invocation. B learns it only if A's
    // counts outlived that invocation (A's second one sent the whole table) and reached B at its creation.
    const designer = predictions[0]!.predictions.find((p) => p.persona === 'game_designer');
    expect(designer?.history ?? 0).toBeGreaterThan(0);
  });
});
