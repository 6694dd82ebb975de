import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { Gate } from '../conformance/gate.js';
import { caller, Driver, gapless, SwitchableScript } from '../conformance/harness.js';
import { alive } from '../helpers/child.js';
import { implementer, implFile } from '../helpers/debate-script.js';
import type { FakeReply, RecordedRequest } from '../helpers/fake-openai-server.js';
import { RestateCluster } from '../helpers/restate-cluster.js';
import { messagesOf, reply, roleOf } from '../helpers/workflow-run.js';

// Crashes in the middle of a workflow's fan-out, while the branches' tool loops are half done: the worker
// running the session is SIGKILLed, or the restate-server is killed and restarted. The other worker replays the
// invocation from Restate's journal: every model call and tool run that finished is taken from it (the model
// server never sees it again, a file a kept write_file wrote is not written again); only the calls cut off by
// the crash are made again; nothing is lost and the event sequence has no gap or repeat.
const model = new SwitchableScript();
let cluster: RestateCluster;

const IMPLEMENTERS = ['implementer_a', 'implementer_b', 'implementer_c'];
const verdict = (text: string): FakeReply => reply(text, { name: 'review_verdict', arguments: { agree: true, approve: true, feedback: 'ship it', ranking: ['impl_a', 'impl_b', 'impl_c'] } });
const answers: Record<string, (req: RecordedRequest, n: number) => FakeReply> = {
  implementer_a: (req, n) => (implementer('a', 0)[0] as (r: RecordedRequest, n: number) => FakeReply)(req, n),
  implementer_b: (req, n) => (implementer('b', 0)[0] as (r: RecordedRequest, n: number) => FakeReply)(req, n),
  implementer_c: (req, n) => (implementer('c', 0)[0] as (r: RecordedRequest, n: number) => FakeReply)(req, n),
  reviewer_a: () => verdict('All three work.'),
  reviewer_b: () => verdict('Agreed.'),
};

/** A call as the model server tells them apart: the role, and whether it answers a tool's result (the loop's second call). */
const callOf = (req: RecordedRequest) => `${roleOf(req)}${messagesOf(req).at(-1)?.role === 'tool' ? ' after write_file' : ''}`;
/** How often each call was answered (a request whose worker died before the answer was not answered). */
function answered(requests: RecordedRequest[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of requests) if (!r.hungUp) out[callOf(r)] = (out[callOf(r)] ?? 0) + 1;
  return out;
}

beforeAll(async () => {
  cluster = await RestateCluster.start(model.handler, 2);
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

/**
 * Starts implement_review_debate with every implementer held; lets implementers a and c finish their first call
 * (a write_file, which runs and is kept) so their second calls are in flight, b's first call still in flight; then
 * `crash()`; then answers everything and reads the session to its end.
 */
async function crashMidFanout(crash: (id: string) => Promise<void>): Promise<{ id: string; events: TroupeEvent[] }> {
  const gate = new Gate(
    new Set(IMPLEMENTERS),
    (role, req, n) => answers[role]!(req, n),
    (req) => roleOf(req),
  );
  model.use(gate.script);
  const d = new Driver({ name: 'restate', call: caller(cluster.app), stop: async () => undefined }, model);
  const id = await d.create({ workflow: 'implement_review_debate', input: 'implement bech32 in Zig' });
  const applied = (check: (e: TroupeEvent & Record<string, unknown>) => boolean) => d.until(id, (events) => events.some((e) => check(e as TroupeEvent & Record<string, unknown>)));
  await gate.release('implementer_a', 1);
  await applied((e) => e.type === 'tool_call' && e.branch === 'impl_a' && e.phase === 'finished');
  await gate.release('implementer_c', 1);
  await applied((e) => e.type === 'tool_call' && e.branch === 'impl_c' && e.phase === 'finished');
  await d.request('implementer_c to ask again after its tool', (r) => callOf(r) === 'implementer_c after write_file');
  // A kept write_file is never run again: a line the test adds after it would be overwritten by a second run.
  const file = join(cluster.dataDir, 'restate', id, 'workspaces', 'impl_a', 'bech32.zig');
  appendFileSync(file, '// added after the kept write\n');
  await crash(id);
  await gate.release('implementer_b', 2);
  await applied((e) => e.type === 'tool_call' && e.branch === 'impl_b' && e.phase === 'finished');
  await gate.release('implementer_b', 3);
  await gate.release('implementer_a', gate.arrived('implementer_a'));
  await gate.release('implementer_c', gate.arrived('implementer_c'));
  const events = await d.until(id, (es) => es.some((e) => e.type === 'session_ended'));
  expect(readFileSync(file, 'utf8')).toBe(`${implFile('a', 1)}// added after the kept write\n`);
  return { id, events };
}

function expectCompleteRun(events: TroupeEvent[]): void {
  const of = (type: string) => events.filter((e) => e.type === type) as (TroupeEvent & Record<string, unknown>)[];
  expect(gapless(events)).toBe(true);
  expect(of('joined')[0]).toMatchObject({ done: ['impl_a', 'impl_b', 'impl_c'], failed: [] });
  expect(
    of('tool_call')
      .filter((e) => e.phase === 'finished')
      .map((e) => e.branch)
      .sort(),
  ).toEqual(['impl_a', 'impl_b', 'impl_c']);
  expect(
    of('agent_message')
      .map((e) => e.persona)
      .sort(),
  ).toEqual(['implementer_a', 'implementer_b', 'implementer_c', 'reviewer_a', 'reviewer_b']);
  expect(of('session_ended')).toHaveLength(1);
}

describe("a workflow fan-out on Restate survives crashes in the middle of its branches' tool loops", () => {
  it('the worker running it SIGKILLed: the other worker goes on; no finished model call or tool run is repeated', async () => {
    const { events } = await crashMidFanout(async (id) => {
      const pattern = new RegExp(`^model implementer_c started · session ${id}$`);
      const running = cluster.workers.filter((w) => alive(w.child.pid) && w.child.lines.some((l) => pattern.test(l)));
      expect(running).toHaveLength(1);
      await running[0]!.child.kill('SIGKILL');
      cluster.workers.splice(cluster.workers.indexOf(running[0]!), 1);
      cluster.balancer.backends.splice(cluster.balancer.backends.indexOf(running[0]!.port), 1);
    });
    expectCompleteRun(events);
    // Every call answered once: a's and c's first calls (answered before the kill) were never made again.
    expect(answered(model.requests)).toEqual({
      implementer_a: 1,
      'implementer_a after write_file': 1,
      implementer_b: 1,
      'implementer_b after write_file': 1,
      implementer_c: 1,
      'implementer_c after write_file': 1,
      reviewer_a: 1,
      reviewer_b: 1,
    });
    await cluster.addWorker();
  });

  it('the restate-server killed and restarted: the session goes on; no finished model call or tool run is repeated', async () => {
    const { events } = await crashMidFanout(() => cluster.server.restart('SIGKILL'));
    expectCompleteRun(events);
    expect(answered(model.requests)).toEqual({
      implementer_a: 1,
      'implementer_a after write_file': 1,
      implementer_b: 1,
      'implementer_b after write_file': 1,
      implementer_c: 1,
      'implementer_c after write_file': 1,
      reviewer_a: 1,
      reviewer_b: 1,
    });
  });
});
