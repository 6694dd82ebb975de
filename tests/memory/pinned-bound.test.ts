import { describe, expect, it } from 'vitest';
import { memoryLines } from '../../src/commands/memory-source.js';
import { MemorySchema } from '../../src/config/team-schema.js';
import { agentById } from '../../src/engine/definition.js';
import { initialState } from '../../src/engine/step.js';
import { Memory, PINNED_KEPT, WAITING_PINS_MAX } from '../../src/memory/memory.js';
import { MemoryPromptBuilder } from '../../src/memory/memory-prompt-builder.js';
import type { PromptInput } from '../../src/memory/prompt-builder.js';
import { promptTokens } from '../../src/memory/tokens.js';
import { studio } from '../helpers/team.js';

const team = studio();
const BUDGET = 12_000;

function input(): PromptInput {
  const persona = agentById(team.def, 'cfo')!;
  const session = { ...initialState(team.def, { id: 's' }), brief: 'A lighthouse game' };
  const call = { turnId: 'tx', persona: 'cfo', path: persona.path, attempt: 1, inbox: { kind: 'handoff' as const, from: 'ceo', text: 'Your turn.', approved: false } };
  return { def: team.def, session, call, persona, personaPrompt: team.loaded.prompts.cfo! };
}

/** A memory given a distinct key decision every turn (no summariser: pins settle as they pile up). */
function memoryAfter(turns: number, from?: Memory): Memory {
  const memory = from ?? new Memory({ config: MemorySchema.parse({}) });
  if (!from) memory.recordUser('A lighthouse game');
  const start = memory.toJSON().turn;
  for (let i = start; i < start + turns; i++) {
    memory.recordAgent({ turnId: `t${i}`, persona: 'ceo', text: `Turn ${i}.`, turn: i + 1 });
    memory.recordDirective({
      turnId: `t${i}`,
      persona: 'ceo',
      directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'cfo', key_decisions: [`decision number ${i}: the lighthouse keeps lamp ${i}`] },
    });
  }
  return memory;
}

const pinsOf = (m: Memory) => m.toJSON().pinned.length;
const bytesOfPins = (m: Memory) => JSON.stringify({ pinned: m.toJSON().pinned, moved: m.toJSON().moved }).length;

describe('pinned decisions bounded in the memory state (issue 23, item 4)', () => {
  it('a distinct decision every turn: the state keeps at most PINNED_KEPT pins (plus those waiting), the rest moved out and counted', () => {
    const small = memoryAfter(PINNED_KEPT);
    const big = memoryAfter(3_000);
    expect(pinsOf(big)).toBeLessThanOrEqual(PINNED_KEPT + WAITING_PINS_MAX + 1);
    const moved = big.toJSON().moved!;
    expect(moved.count + pinsOf(big)).toBe(3_000);
    expect(moved.first).toBe(1);
    // The pins state is as large after 3,000 turns as after PINNED_KEPT (decision texts grow by a digit or two).
    expect(bytesOfPins(big)).toBeLessThan(1.3 * bytesOfPins(small));
    // The newest decision is kept verbatim; the oldest kept ones are the ones right after the moved ones.
    expect(big.pinned.at(-1)!.text).toBe('decision number 2999: the lighthouse keeps lamp 2999');
    expect(big.pinned[0]!.turn).toBe(moved.last + 1);
  });

  it('the prompt names the moved pins in one line and stays in budget; !memory says where they are', () => {
    const memory = memoryAfter(1_000);
    const messages = new MemoryPromptBuilder(memory, { budget: BUDGET }).build(input());
    expect(promptTokens(messages)).toBeLessThanOrEqual(BUDGET);
    const text = messages.map((m) => m.content).join('\n');
    const moved = memory.toJSON().moved!;
    expect(text).toContain(`(${moved.count} earlier pinned items, turns 1-${moved.last}, kept in the session's journal: still binding; troupe show lists them)`);
    const lines = memoryLines(() => memory.snapshot());
    expect(lines[1]).toBe(`  (${moved.count} earlier, turns 1-${moved.last}, moved out of memory to bound it: troupe show <session> lists every one)`);
  });

  it('survives a save and restore, and keeps bounding after it', () => {
    const memory = memoryAfter(500);
    const restored = Memory.fromJSON(JSON.parse(JSON.stringify(memory.toJSON())), { config: MemorySchema.parse({}) });
    expect(restored.toJSON()).toEqual(memory.toJSON());
    memoryAfter(500, restored);
    expect(pinsOf(restored)).toBeLessThanOrEqual(PINNED_KEPT + WAITING_PINS_MAX + 1);
    expect(restored.toJSON().moved!.count + pinsOf(restored)).toBe(1_000);
  });
});
