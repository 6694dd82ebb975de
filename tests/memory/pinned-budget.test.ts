import { describe, expect, it } from 'vitest';
import { MemorySchema } from '../../src/config/team-schema.js';
import { agentById } from '../../src/engine/definition.js';
import type { EngineEvent } from '../../src/engine/event-map.js';
import { initialState } from '../../src/engine/step.js';
import { Memory } from '../../src/memory/memory.js';
import { MemoryPromptBuilder } from '../../src/memory/memory-prompt-builder.js';
import type { PromptInput } from '../../src/memory/prompt-builder.js';
import { promptTokens } from '../../src/memory/tokens.js';
import { studio } from '../helpers/team.js';
import { hugeDecisions } from '../fixtures/hostile-b/inputs.js';

const team = studio();
const BUDGET = 12_000;

function input(): PromptInput {
  const persona = agentById(team.def, 'cfo')!;
  const session = { ...initialState(team.def, { id: 's' }), brief: 'A lighthouse game' };
  const call = { turnId: 'tx', persona: 'cfo', path: persona.path, attempt: 1, inbox: { kind: 'handoff' as const, from: 'ceo', text: 'Your turn.', approved: false } };
  return { def: team.def, session, call, persona, personaPrompt: team.loaded.prompts.cfo! };
}

function memoryWith(decisions: string[], perTurn = 1): Memory {
  const memory = new Memory({ config: MemorySchema.parse({}) });
  memory.recordUser('A lighthouse game');
  for (let i = 0; i < decisions.length; i += perTurn) {
    memory.recordAgent({ turnId: `t${i}`, persona: 'ceo', text: `Turn ${i}.`, turn: i + 1 });
    memory.recordDirective({ turnId: `t${i}`, persona: 'ceo', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'cfo', key_decisions: decisions.slice(i, i + perTurn) } });
  }
  return memory;
}

const firstSentence = (d: string) => d.slice(0, d.indexOf('.') + 1);
// Pins made since the last summary wait after the recent turns (up to 8; more join the system prompt's block): the whole prompt holds them.
const allText = (messages: { content: string }[]) => messages.map((m) => m.content).join('\n');

describe('pinned decisions within the prompt budget (issue 10, item 10)', () => {
  it('twenty 20 KB key decisions: each is capped, the prompt stays within 12,000 tokens, and memory_trimmed says so', () => {
    const decisions = hugeDecisions();
    const events: EngineEvent[] = [];
    const builder = new MemoryPromptBuilder(memoryWith(decisions, 4), { budget: BUDGET, publish: (e) => events.push(e) });
    const messages = builder.build(input());
    expect(promptTokens(messages)).toBeLessThanOrEqual(BUDGET);
    for (const d of decisions) expect(allText(messages)).toContain(firstSentence(d));
    const trimmed = events.find((e) => e.type === 'memory_trimmed');
    if (trimmed?.type !== 'memory_trimmed') throw new Error('no memory_trimmed event');
    expect(trimmed.dropped).toContain('pinned: 20 item(s) cut to 600 characters');
    expect(trimmed.tokens_after).toBeLessThanOrEqual(BUDGET);
    // Said once per pinned version, not on every call.
    builder.build(input());
    expect(events.filter((e) => e.type === 'memory_trimmed')).toHaveLength(1);
  });

  it('when the pins alone would pass their share, the oldest are condensed to their gist and every decision keeps it', () => {
    const decisions = hugeDecisions(120, 600);
    const events: EngineEvent[] = [];
    const messages = new MemoryPromptBuilder(memoryWith(decisions, 10), { budget: BUDGET, publish: (e) => events.push(e) }).build(input());
    const system = messages[0]!.content;
    expect(promptTokens(messages)).toBeLessThanOrEqual(BUDGET);
    for (const d of decisions) expect(allText(messages)).toContain(firstSentence(d));
    expect(system).toContain('Earlier items, condensed to their gist:');
    // The newest stay verbatim (as capped), waiting after the turns.
    expect(allText(messages)).toContain(decisions[decisions.length - 1]!.slice(0, 500));
    const trimmed = events.find((e) => e.type === 'memory_trimmed');
    if (trimmed?.type !== 'memory_trimmed') throw new Error('no memory_trimmed event');
    expect(trimmed.dropped.some((d) => /^pinned: \d+ oldest item\(s\) condensed to their gist$/.test(d))).toBe(true);
    expect(trimmed.tokens_before).toBeGreaterThan(BUDGET);
  });

  it('leaves the oldest out, with a line saying how many, only when even the gists do not fit', () => {
    const decisions = Array.from({ length: 2000 }, (_, i) => `Decision ${i}: the ${i}th lamp keeps its own colour through every storm of the season.`);
    // The state keeps the newest PINNED_KEPT pins (the rest are moved out, one line says so); a smaller budget still cannot show all their gists.
    const small = 5_000;
    const messages = new MemoryPromptBuilder(memoryWith(decisions, 20), { budget: small }).build(input());
    expect(promptTokens(messages)).toBeLessThanOrEqual(small);
    expect(messages[0]!.content).toMatch(
      /\(\d+ earlier pinned items, turns 1-\d+, kept in the session's journal: still binding; troupe show lists them\)\n\(\d+ earlier pinned items left out here for the prompt budget; !memory lists every one\)/,
    );
  });

  it('keeps the block verbatim and says nothing when the pins fit', () => {
    const events: EngineEvent[] = [];
    const memory = memoryWith(['Six chapters, single-player.']);
    const builder = new MemoryPromptBuilder(memory, { budget: BUDGET, publish: (e) => events.push(e) });
    // Until the next summary the new pin waits after the turns, before the inbox.
    expect(builder.build(input()).at(-2)!.content).toBe('## Pinned since the last summary (verbatim, binding for everyone)\n- CEO: Six chapters, single-player.');
    memory.settlePins();
    const messages = builder.build(input());
    expect(messages[0]!.content.endsWith('## Pinned decisions (verbatim, binding for everyone)\n- CEO: Six chapters, single-player.')).toBe(true);
    expect(messages.some((m) => m.content.includes('Pinned since the last summary'))).toBe(false);
    expect(events).toEqual([]);
  });
});
