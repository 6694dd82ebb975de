import { describe, expect, it } from 'vitest';
import type { ChatResponse } from '../../src/llm/chat-model.js';
import { promptTokens } from '../../src/memory/tokens.js';
import { LongSessionModel, memoryRunner, runToEnd } from './long-session.js';

const EARLY = ['Lighthouse lamp uses a three-colour cycle', 'Chapter one ends at the first storm'];

describe('memory in a long session (scripted models)', () => {
  it('keeps decisions pinned at turn 3 verbatim in the prompt at turn 200, with a bounded prompt', async () => {
    const model = new LongSessionModel({ lastTurn: 200, yields: 60, decisions: { 3: EARLY, 90: ['Fog horn is the tutorial signal'] } });
    const { runner, events, attached } = await memoryRunner(model);
    await runToEnd(runner, attached);
    expect(runner.getSnapshot().turn).toBe(200);
    const last = model.prompts.get(200)!;
    const system = last[0]!.content;
    for (const d of [...EARLY, 'Fog horn is the tutorial signal']) expect(system).toContain(d);
    const compressed = events.filter((e) => e.type === 'memory_compressed');
    expect(compressed.length).toBeGreaterThan(30);
    expect(attached!.memory.summaries.length).toBeLessThanOrEqual(10);
    expect(promptTokens(last)).toBeLessThan(promptTokens(model.prompts.get(20)!) * 1.5);
    // Never dropped: every raw turn is either still raw or counted in a summary.
    const covered = attached!.memory.summaries.reduce((n, s) => n + s.count, 0) + attached!.memory.recent.length;
    expect(covered).toBe(200);
  });

  it('merges summaries past the cap and keeps the oldest turns covered', async () => {
    const model = new LongSessionModel({ lastTurn: 40 });
    const { runner, events, attached } = await memoryRunner(model, { memory: { compress_every: 3, keep_recent: 2, max_summaries: 3 } });
    await runToEnd(runner, attached);
    const m = attached!.memory;
    expect(m.summaries.length).toBeLessThanOrEqual(3);
    expect(m.summaries[0]!.first).toBe(1);
    expect(m.summaries[0]!.parts).toBeGreaterThan(1);
    const merges = events.filter((e) => e.type === 'memory_compressed' && e.summaries === 3);
    expect(merges.length).toBeGreaterThan(0);
    expect(m.summaries.reduce((n, s) => n + s.count, 0) + m.recent.length).toBe(40);
  });

  it('a failing summariser never blocks a turn or ends the session; raw turns are kept', async () => {
    const model = new LongSessionModel({ lastTurn: 30, summary: async () => Promise.reject(new Error('summary server down')) });
    const { runner, events, attached } = await memoryRunner(model);
    await runToEnd(runner, attached);
    expect(runner.getSnapshot().turn).toBe(30);
    expect(runner.getSnapshot().awaiting?.code).toBe('complete');
    expect(events.some((e) => e.type === 'memory_compressed')).toBe(false);
    expect(events.filter((e) => e.type === 'error' && e.where === 'memory').length).toBeGreaterThan(0);
    expect(attached!.memory.recent.length).toBe(30);
    expect(model.summaryCalls).toBeLessThan(10); // retried later, not on every turn
  });

  it('a summariser that never answers does not hold up persona turns', async () => {
    const model = new LongSessionModel({ lastTurn: 25, summary: () => new Promise<ChatResponse>(() => {}) });
    const { runner, attached } = await memoryRunner(model);
    runner.start('A cozy lighthouse game');
    await runner.settled();
    expect(runner.getSnapshot().turn).toBe(25);
    expect(attached!.memory.snapshot().compressing).toBe(true);
    expect(attached!.memory.recent.length).toBe(25);
  });

  it('trims the oldest non-pinned material to the budget and says so in memory_trimmed', async () => {
    const model = new LongSessionModel({ lastTurn: 30, decisions: { 3: EARLY }, summary: async () => Promise.reject(new Error('off')) });
    const { runner, events, attached } = await memoryRunner(model, { memory: { prompt_budget: 1700 } });
    await runToEnd(runner, attached);
    const trimmed = events.filter((e) => e.type === 'memory_trimmed');
    expect(trimmed.length).toBeGreaterThan(0);
    const t = trimmed[trimmed.length - 1]!;
    if (t.type !== 'memory_trimmed') throw new Error('unreachable');
    expect(t.budget).toBe(1700);
    expect(t.tokens_after).toBeLessThanOrEqual(1700);
    expect(t.tokens_before).toBeGreaterThan(1700);
    expect(t.dropped[0]).toMatch(/^turn 1 \(/);
    const last = model.prompts.get(30)!;
    expect(promptTokens(last)).toBeLessThanOrEqual(1700);
    for (const d of EARLY) expect(last.map((m) => m.content).join('\n')).toContain(d);
  });
});
