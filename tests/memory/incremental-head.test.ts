import { describe, expect, it } from 'vitest';
import { MemorySchema } from '../../src/config/team-schema.js';
import type { EngineEvent } from '../../src/engine/event-map.js';
import type { ChatMessage } from '../../src/llm/chat-model.js';
import { Memory } from '../../src/memory/memory.js';
import type { MovedPins, Pinned } from '../../src/memory/memory-state.js';
import { fitPinned, PinnedLines, type PinnedFit } from '../../src/memory/pinned-fit.js';
import { MemoryPromptBuilder } from '../../src/memory/memory-prompt-builder.js';
import { promptTokens } from '../../src/memory/tokens.js';
import { input, summariser } from './studio-calls.js';

const PERSONAS = ['ceo', 'cfo', 'cmo', 'game_designer'];

/**
 * Plays `turns` turns on one memory; before each turn the persona's prompt is built twice: by a builder that
 * lives the whole session (its heads built by appending) and by a new one (built from nothing). Returns both.
 */
async function play(
  turns: number,
  budget: number,
  memoryConfig: Record<string, unknown> = { compress_every: 4, keep_recent: 2, max_summaries: 4 },
): Promise<{ kept: ChatMessage[][]; fresh: ChatMessage[][]; trimmed: number }> {
  const memory = new Memory({ config: MemorySchema.parse(memoryConfig), summariser });
  memory.recordUser('A lighthouse keeper game');
  const events: EngineEvent[] = [];
  const builder = new MemoryPromptBuilder(memory, { budget, publish: (e) => events.push(e) });
  const kept: ChatMessage[][] = [];
  const fresh: ChatMessage[][] = [];
  let previous: { persona: string; text: string } | null = null;
  for (let n = 1; n <= turns; n++) {
    const persona = PERSONAS[(n * 3 + (n >> 2)) % PERSONAS.length]!;
    // Mostly a handoff quoting the latest turn; sometimes an inbox that quotes nothing, sometimes a warming-style head.
    const inbox = previous && n % 5 !== 0 ? { from: previous.persona, text: previous.text } : { from: 'cfo', text: `Something new at ${n}` };
    if (n % 7 === 0) expect(builder.prefixMessages(input(persona, null))).toEqual(new MemoryPromptBuilder(memory, { budget }).prefixMessages(input(persona, null)));
    kept.push(builder.build(input(persona, inbox)));
    fresh.push(new MemoryPromptBuilder(memory, { budget }).build(input(persona, inbox)));
    const text = `Turn ${n}: on the tide chart and lantern puzzle ${'we keep the keeper busy at night '.repeat(1 + (n % 4))}`.trim();
    memory.recordAgent({ turnId: `t${n}`, persona, text, turn: n });
    memory.recordDirective({
      turnId: `t${n}`,
      persona,
      directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'cfo', ...(n % 2 || memoryConfig.compress_every === 1000 ? { key_decisions: [`decision ${n}: lamp colour ${n}`] } : {}) },
    });
    memory.recordApproval({ by: persona, of: previous?.persona ?? 'brief', status: n % 6 ? 'APPROVED' : 'REQUEST_REWORK', reason: `reason ${n}` });
    if (n % 3 === 0) await memory.idle();
    previous = { persona, text };
  }
  return { kept, fresh, trimmed: events.filter((e) => e.type === 'memory_trimmed').length };
}

describe('prompts built by appending to each persona head', () => {
  it('are byte for byte the prompts built from nothing, over 150 turns with summaries, merges, pins and quoted inboxes', async () => {
    const { kept, fresh, trimmed } = await play(150, 1_000_000);
    expect(trimmed).toBe(0);
    for (let i = 0; i < kept.length; i++) expect(JSON.stringify(kept[i]), `call ${i + 1}`).toBe(JSON.stringify(fresh[i]));
  });

  it('are the same when the budget is crossed: the oldest are dropped as from nothing, and the prompt fits exactly', async () => {
    const budget = 2_600;
    const { kept, fresh, trimmed } = await play(120, budget);
    expect(trimmed).toBeGreaterThan(10);
    for (let i = 0; i < kept.length; i++) {
      expect(JSON.stringify(kept[i]), `call ${i + 1}`).toBe(JSON.stringify(fresh[i]));
      expect(promptTokens(kept[i]!)).toBeLessThanOrEqual(budget);
    }
  });

  it('are the same when pins join the prefix between summaries (nine waiting, or each at once with new_pins "in_system")', async () => {
    for (const config of [{ compress_every: 1000 }, { compress_every: 1000, new_pins: 'in_system' }]) {
      const { kept, fresh } = await play(40, 1_000_000, config);
      for (let i = 0; i < kept.length; i++) expect(JSON.stringify(kept[i]), `${config.new_pins ?? 'after_turns'} call ${i + 1}`).toBe(JSON.stringify(fresh[i]));
    }
  });
});

describe('a persona head kept across prefix and summary changes', () => {
  it('keeps the turn messages it built when pins join the prefix, and the ones a summary left when it lands (rendered once per persona)', async () => {
    const memory = new Memory({ config: MemorySchema.parse({ compress_every: 4, keep_recent: 2, new_pins: 'in_system' }), summariser });
    memory.recordUser('A lighthouse keeper game');
    const builder = new MemoryPromptBuilder(memory, { budget: 1_000_000 });
    const say = (n: number, persona: string, decision: boolean) => {
      memory.recordAgent({ turnId: `t${n}`, persona, text: `Turn ${n}: the lamp and the tide chart, again at night.`, turn: n });
      memory.recordDirective({ turnId: `t${n}`, persona, directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'ceo', ...(decision ? { key_decisions: [`decision ${n}`] } : {}) } });
    };
    say(1, 'cfo', false);
    say(2, 'cmo', false);
    const quiet = { from: 'cmo', text: 'Something unquoted' };
    const before = builder.build(input('ceo', quiet));
    // A decision pinned at once: the prefix (the system message) changes, the turns before it do not.
    say(3, 'cfo', true);
    const after = builder.build(input('ceo', quiet));
    expect(after[0]!.content).not.toBe(before[0]!.content);
    expect(after[1]).toBe(before[1]);
    expect(after[2]).toBe(before[2]);
    // A summary takes the oldest turns: the turns it left keep their messages.
    say(4, 'cmo', false);
    await memory.idle();
    expect(memory.summaries.length).toBe(1);
    const left = memory.recent.map((t) => t.turn);
    const summarised = builder.build(input('ceo', quiet));
    expect(JSON.stringify(summarised)).toBe(JSON.stringify(new MemoryPromptBuilder(memory, { budget: 1_000_000 }).build(input('ceo', quiet))));
    const kept = after.filter((m) => left.some((n) => m.content.startsWith(`[`) && m.content.includes(`Turn ${n}:`)));
    expect(kept.length).toBeGreaterThan(0);
    for (const m of kept) expect(summarised).toContain(m);
  });
});

describe("a turn quoted in other personas' prompts", () => {
  it('is rendered once and shared by every persona but its author, who gets it as its own message', () => {
    const memory = new Memory({ config: MemorySchema.parse({ compress_every: 1000 }) });
    memory.recordUser('A lighthouse keeper game');
    const builder = new MemoryPromptBuilder(memory, { budget: 1_000_000 });
    memory.recordAgent({ turnId: 't1', persona: 'cfo', text: 'Turn 1: the lamp budget.', turn: 1 });
    const quiet = { from: 'cmo', text: 'Something unquoted' };
    const quoted = (persona: string) => builder.build(input(persona, quiet)).find((m) => m.content.endsWith('Turn 1: the lamp budget.'))!;
    const ceo = quoted('ceo');
    expect(ceo).toEqual({ role: 'user', content: '[CFO]: Turn 1: the lamp budget.' });
    expect(quoted('cmo')).toBe(ceo);
    expect(quoted('cfo')).toEqual({ role: 'assistant', content: 'Turn 1: the lamp budget.' });
  });
});

describe('the pinned block extended in place', () => {
  it('is the block fitted from nothing after every append and every move of the oldest out, verbatim or condensed', () => {
    const lines = new PinnedLines((id) => id.toUpperCase());
    const pinned: Pinned[] = [];
    let moved: MovedPins | undefined;
    let previous: PinnedFit | undefined;
    for (let n = 1; n <= 400; n++) {
      const text = n % 17 === 0 ? `a long decision ${n} ${'with many words '.repeat(50)}` : n % 5 === 0 ? `decision ${n} ends here.` : `decision ${n} on topic${n % 9}`;
      pinned.push({ kind: n % 11 === 0 ? 'rejection' : 'decision', turn: n, by: n % 2 ? 'cfo' : 'ceo', ...(n % 11 === 0 ? { of: 'cmo' } : {}), text, repeats: 1 });
      if (n % 9 === 0 && pinned.length > 40) {
        const out = pinned.splice(0, pinned.length - 40);
        moved = { count: (moved?.count ?? 0) + out.length, first: moved?.first ?? out[0]!.turn, last: out[out.length - 1]!.turn };
      }
      // A budget that the block crosses now and then: condensed for a while, verbatim again once pins move out.
      const max = n > 150 && n < 200 ? 900 : 4000;
      const fresh = fitPinned(pinned, lines, max, undefined, moved);
      const fit = fitPinned(pinned, lines, max, previous, moved);
      const { items: _a, body: _b, ...shown } = fit;
      const { items: _c, body: _d, ...expected } = fresh;
      expect(shown, `pin ${n}`).toEqual(expected);
      previous = fit;
    }
  });
});
