import { isLiveOnly } from '../../src/kernel/session-kernel.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { modelFromEnv } from '../../src/llm/from-env.js';
import { FakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { RestateCluster } from '../helpers/restate-cluster.js';
import { comparableTranscript, TaggedScript, type TaggedTurn } from '../helpers/tagged-script.js';
import { studioRunner } from '../helpers/team.js';
import { startedTurns } from '../helpers/workers.js';
import { alive, until } from '../helpers/child.js';

// Four persona turns; the second (the Game Designer's) is slow the first time it is asked for, so a test can
// break something while it runs.
const story = (slowMs = 0): TaggedTurn[] => [{ next: 'game_designer' }, { next: 'lead_engineer', delayFirstMs: slowMs }, { next: 'creative_partner' }, { transition: 'RESPOND_TO_USER' }];

const script = new TaggedScript({ kill: story(4_000), restart: story(4_000), reference: story() });
const awaiting = (events: TroupeEvent[]) => events.some((e) => e.type === 'awaiting_user');
let cluster: RestateCluster;

/** The same story run start to end in one process (embedded backend, full-history prompts), never interrupted. */
async function uninterrupted(tag: string): Promise<ReturnType<typeof comparableTranscript>> {
  const fake = await new FakeOpenAIServer(new TaggedScript({ [tag]: story() }).reply).start();
  try {
    const { runner, events } = await studioRunner(modelFromEnv({ OPENAI_BASE_URL: fake.baseURL, TROUPE_RETRIES: '0' }));
    runner.start(`A lighthouse keeper game [[tag ${tag}]]`);
    await runner.settled();
    return comparableTranscript(events);
  } finally {
    await fake.stop();
  }
}

/** The worker that started `persona`'s turn of the session, once that turn's request reached the model server. */
async function workerRunning(id: string, persona: string, tag: string, turn: number) {
  const pattern = new RegExp(`^model ${persona} started · session ${id}$`);
  const worker = await Promise.race(cluster.workers.filter((w) => alive(w.child.pid)).map((w) => w.child.waitFor(pattern).then(() => w)));
  // The worker prints its line before the request goes out: wait for the request, so the call really is in flight.
  await until(`turn ${turn} of ${tag} to reach the model server`, () => script.count(tag, turn) >= 1);
  return worker;
}

beforeAll(async () => {
  cluster = await RestateCluster.start(script, 2);
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('sessions on Restate survive crashes (real restate-server, two troupe workers behind one deployment URL)', () => {
  it('a worker SIGKILLed in the middle of a persona turn: the other worker continues, completed model calls are not repeated, the transcript equals an uninterrupted run', async () => {
    const id = await cluster.create('A lighthouse keeper game [[tag kill]]');
    const victim = await workerRunning(id, 'game_designer', 'kill', 2);
    await victim.child.kill('SIGKILL');
    const events = await cluster.stream(id, awaiting);

    expect(comparableTranscript(events)).toEqual(await uninterrupted('kill'));
    // The fake server's log: each completed call was made once; the one in flight at the kill was made again.
    expect([1, 2, 3, 4].map((turn) => script.count('kill', turn))).toEqual([1, 2, 1, 1]);
    const survivor = cluster.workers.find((w) => w !== victim)!;
    expect(
      startedTurns(survivor)
        .filter((t) => t.session === id)
        .map((t) => t.persona),
    ).toContain('game_designer');
    expect(await (await cluster.call(`/v1/sessions/${id}`)).json()).toMatchObject({ status: 'awaiting_user', turn: 4, awaiting: { code: 'respond_to_user' } });
    const stored = events.filter((e) => !isLiveOnly(e.type));
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));
    // Two workers again for what follows.
    cluster.workers.splice(cluster.workers.indexOf(victim), 1);
    cluster.balancer.backends.splice(cluster.balancer.backends.indexOf(victim.port), 1);
    await cluster.addWorker();
  });

  it('the Restate server killed and restarted mid-session: the session continues, completed model calls are not repeated, the transcript equals an uninterrupted run', async () => {
    const id = await cluster.create('A lighthouse keeper game [[tag restart]]');
    await workerRunning(id, 'game_designer', 'restart', 2);
    await cluster.server.restart('SIGKILL');
    // The stream is read across the restart's aftermath: the API keeps polling until Restate answers.
    const events = await cluster.stream(id, awaiting);

    expect(comparableTranscript(events)).toEqual(await uninterrupted('restart'));
    expect(script.count('restart', 1)).toBe(1);
    expect(script.count('restart', 3)).toBe(1);
    expect(script.count('restart', 4)).toBe(1);
    // The call in flight when the server died had no journaled result: it was made again.
    expect(script.count('restart', 2)).toBe(2);
    // Event sequence numbers have no gaps and no repeats: each step was applied exactly once.
    const stored = events.filter((e) => !isLiveOnly(e.type));
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));
  });
});
