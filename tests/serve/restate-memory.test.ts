import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import type { RecordedRequest } from '../helpers/fake-openai-server.js';
import { completion } from '../helpers/fake-openai-server.js';
import { RestateCluster } from '../helpers/restate-cluster.js';
import { TaggedScript } from '../helpers/tagged-script.js';

// The rolling memory on Restate: the shipped team compresses every 5 raw turns, keeping the 2 newest raw. The
// summary call is a step of the session's invocation like a persona's (metered, kept, never made twice); the
// memory is kept in the session's state between invocations, `!memory` reads it, and later prompts carry it.
const DECISION = 'D-LIGHT: the keeper logs every passing ship';
const story = new TaggedScript({
  memory: [{ next: 'game_designer' }, { next: 'lead_engineer' }, { next: 'creative_partner' }, { next: 'game_designer' }, { transition: 'RESPOND_TO_USER' }, { transition: 'RESPOND_TO_USER' }],
});
const isSummary = (req: RecordedRequest) => (req.body as { response_format?: { type?: string } }).response_format?.type === 'json_object';
const summaries: RecordedRequest[] = [];
const summary = JSON.stringify({ decisions: [DECISION], discussions: ['the tone of the lighthouse'], pending: [] });
let cluster: RestateCluster;

beforeAll(async () => {
  cluster = await RestateCluster.start((req, _i) => {
    if (!isSummary(req)) return story.reply(req);
    summaries.push(req);
    return { body: completion(summary) };
  }, 1);
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

const count = (type: string, n: number) => (events: TroupeEvent[]) => events.filter((e) => e.type === type).length >= n;

describe('rolling memory on Restate', () => {
  it("compresses inside the session's invocation, keeps the memory between invocations, shows it in !memory and gives it to later prompts", async () => {
    const id = await cluster.create('A lighthouse keeper game [[tag memory]]');
    const first = await cluster.stream(id, (es) => count('awaiting_user', 1)(es) && count('memory_compressed', 1)(es));
    // Five persona turns are five raw turns: the oldest three were summarised once, in the same invocation.
    expect(first.filter((e) => e.type === 'memory_compressed')).toEqual([expect.objectContaining({ turns_in: 3, summaries: 1 })]);
    expect(summaries).toHaveLength(1);
    expect(first.filter((e) => e.type === 'usage' && e.persona === null)).toHaveLength(1);

    const memory = await cluster.call(`/v1/sessions/${id}/input`, { json: { text: '!memory' } });
    expect(await memory.json()).toMatchObject({ kind: 'output', title: 'memory', lines: expect.arrayContaining([`    decision: ${DECISION}`]) });

    expect((await cluster.call(`/v1/sessions/${id}/input`, { json: { text: 'Make the keeper older [[tag memory]]' } })).status).toBe(202);
    await cluster.stream(id, count('awaiting_user', 2));
    // The prompt after the reply carries the summary (restored from the session's state by a new invocation).
    const after = cluster.fake.requests.filter((r) => !isSummary(r)).at(-1)!;
    expect(JSON.stringify(after.body)).toContain(DECISION);
    expect(summaries).toHaveLength(1);
  });
});
