import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { REPO_ROOT } from '../helpers/team.js';
import { LongSessionModel, memoryRunner, runToEnd } from './long-session.js';

// What the memory of a long session tells the user, as the code before prompts were bounded by their bytes
// (main at 6401ee6) told it: when summaries are made, their token figures, and what each trimmed prompt
// dropped with its exact counts. TROUPE_WRITE_FIXTURE=1 rewrites it (only from code known to count exactly).
const FIXTURE = join(REPO_ROOT, 'tests/fixtures/memory/long-session-memory-events.json');

/** The memory events of a session, each with the persona turn it came after. */
function memoryEvents(events: readonly TroupeEvent[]): unknown[] {
  let turn = 0;
  const out: unknown[] = [];
  for (const e of events) {
    if (e.type === 'agent_message') turn = e.turn;
    if (e.type === 'memory_compressed') out.push({ turn, type: e.type, turns_in: e.turns_in, tokens_before: e.tokens_before, tokens_after: e.tokens_after, summaries: e.summaries });
    if (e.type === 'memory_trimmed') out.push({ turn, type: e.type, persona: e.persona, dropped: e.dropped, tokens_before: e.tokens_before, tokens_after: e.tokens_after, budget: e.budget });
  }
  return out;
}

async function session(budget: number): Promise<unknown[]> {
  const decisions: Record<number, string[]> = {};
  // Distinct decisions, some long (cut in the prompt), so the pinned block grows, settles, and at the tight budget gives way.
  for (let n = 2; n <= 90; n += 3)
    decisions[n] = [n % 15 === 2 ? `Decision ${n}: ${'the keeper logs every storm in the lighthouse journal, '.repeat(14)}` : `Decision ${n}: the fog horn sounds at ${n} knots`];
  const model = new LongSessionModel({ lastTurn: 90, decisions, yields: 6 });
  const { runner, events, attached } = await memoryRunner(model, { memory: { prompt_budget: budget, compress_every: 5, keep_recent: 2 } });
  await runToEnd(runner, attached);
  await runner.stop();
  return memoryEvents(events);
}

describe('summaries and trims of a long session (issue 23, item 6: counting only near the budget)', () => {
  it('are made on the same turns with the same token figures as when every prompt was counted', async () => {
    const got = { roomy: await session(12_000), tight: await session(1_600) };
    if (process.env.TROUPE_WRITE_FIXTURE === '1') writeFileSync(FIXTURE, `${JSON.stringify(got, null, 1)}\n`);
    const expected = JSON.parse(readFileSync(FIXTURE, 'utf8')) as typeof got;
    // The session is long enough to summarise, merge and (at the tight budget) trim.
    expect(expected.roomy.filter((e) => (e as { type: string }).type === 'memory_compressed').length).toBeGreaterThan(10);
    expect(expected.tight.filter((e) => (e as { type: string }).type === 'memory_trimmed').length).toBeGreaterThan(10);
    expect(got).toEqual(expected);
  });
});
