import { describe, expect, it } from 'vitest';
import { MemorySchema } from '../../src/config/team-schema.js';
import { agentById } from '../../src/engine/definition.js';
import type { EngineEvent } from '../../src/engine/event-map.js';
import { initialState } from '../../src/engine/step.js';
import { Memory } from '../../src/memory/memory.js';
import { MemoryPromptBuilder } from '../../src/memory/memory-prompt-builder.js';
import type { MemoryState, Summary } from '../../src/memory/memory-state.js';
import { summaryText } from '../../src/memory/render.js';
import { systemPrompt, type PromptInput } from '../../src/memory/prompt-builder.js';
import { countTokens, promptTokens } from '../../src/memory/tokens.js';
import { studio } from '../helpers/team.js';

const team = studio();
const persona = agentById(team.def, 'cfo')!;

function input(inboxText: string, extra: Partial<PromptInput['call']> = {}): PromptInput {
  const session = { ...initialState(team.def, { id: 's' }), brief: 'A lighthouse game' };
  const call = { turnId: 't9', persona: 'cfo', path: persona.path, attempt: 1, inbox: { kind: 'handoff' as const, from: 'ceo', text: inboxText, approved: false }, ...extra };
  return { def: team.def, session, call, persona, personaPrompt: team.loaded.prompts.cfo! };
}

// Stored counts are real counts (the builder builds on them, as on a turn's count made when it was stored).
const t = (text: string) => countTokens(text);
const summary = (s: Omit<Summary, 'tokens'>): Summary => ({ ...s, tokens: countTokens(summaryText({ ...s, tokens: 0 })) });

function memoryWith(): Memory {
  const state: MemoryState = {
    version: 1,
    brief: 'A lighthouse game',
    nextId: 10,
    turn: 8,
    turnsSeen: 8,
    sinceCompression: 0,
    retryAt: 0,
    failures: 0,
    raw: [
      { id: 7, turn: 6, author: 'cfo', type: 'general', text: 'My earlier numbers.', tokens: t('My earlier numbers.') },
      { id: 8, turn: 7, author: 'user', type: 'general', text: 'Keep it cheap.', tokens: t('Keep it cheap.') },
      { id: 9, turn: 8, author: 'ceo', type: 'general', text: 'CFO, please check this.', tokens: t('CFO, please check this.') },
    ],
    pinned: [{ kind: 'decision', turn: 2, by: 'ceo', text: 'Six chapters, single-player.', repeats: 1 }],
    summaries: [
      summary({ id: 1, first: 1, last: 3, count: 3, parts: 1, decisions: ['Chapters are hand-made'], discussions: [], pending: [] }),
      summary({ id: 2, first: 4, last: 5, count: 2, parts: 1, decisions: [], discussions: ['Lens puzzles'], pending: ['Who voices the keeper?'] }),
    ],
  };
  const names: Record<string, string> = { ceo: 'CEO', cfo: 'CFO' };
  return new Memory({ config: MemorySchema.parse({}), state, nameOf: (id) => names[id] ?? id });
}

describe('MemoryPromptBuilder', () => {
  it("orders prefix, summaries, recent turns from the persona's point of view, then the inbox", () => {
    const builder = new MemoryPromptBuilder(memoryWith(), { budget: 12000 });
    const messages = builder.build(input('CFO, please check this.'));
    const system = messages[0]!.content;
    expect(system.startsWith(systemPrompt(input('x')))).toBe(true);
    expect(system).toContain('## The brief\nA lighthouse game');
    expect(system.endsWith('## Pinned decisions (verbatim, binding for everyone)\n- CEO: Six chapters, single-player.')).toBe(true);
    expect(messages.slice(1).map((m) => [m.role, m.content.split('\n')[0]])).toEqual([
      ['user', '## Earlier in this session (summaries, oldest first)'],
      ['assistant', 'My earlier numbers.'],
      ['user', '[User]: Keep it cheap.'],
      ['user', 'CEO handed the work to you. Their message:'],
    ]);
    expect(messages[1]!.content).toContain('### turns 4-5\nDiscussed: Lens puzzles\nOpen: Who voices the keeper?');
  });

  it('carries the repair round after the inbox', () => {
    const messages = new MemoryPromptBuilder(memoryWith(), { budget: 12000 }).build(input('other', { attempt: 2, repair: 'transition: invalid', priorText: 'my words' }));
    expect(messages.slice(-2).map((m) => m.role)).toEqual(['assistant', 'user']);
    expect(messages[messages.length - 2]!.content).toBe('my words');
  });

  it('drops the oldest summaries first, then the oldest turns, never the prefix or the inbox', () => {
    const events: EngineEvent[] = [];
    const full = new MemoryPromptBuilder(memoryWith(), { budget: 12000 }).build(input('other'));
    const budget = promptTokens(full) - 5;
    const messages = new MemoryPromptBuilder(memoryWith(), { budget, publish: (e) => events.push(e) }).build(input('other'));
    expect(promptTokens(messages)).toBeLessThanOrEqual(budget);
    expect(messages[0]).toEqual(full[0]);
    expect(messages[messages.length - 1]).toEqual(full[full.length - 1]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'memory_trimmed', persona: 'cfo', dropped: ['summary of turns 1-3'], budget, tokens_before: promptTokens(full), tokens_after: promptTokens(messages) });
    const tight = new MemoryPromptBuilder(memoryWith(), { budget: 256, publish: (e) => events.push(e) }).build(input('other'));
    expect(tight).toHaveLength(2);
    expect(events[1]).toMatchObject({ dropped: ['summary of turns 1-3', 'summary of turns 4-5', 'turn 6 (CFO)', 'turn 7 (User)', 'turn 8 (CEO)'] });
  });

  it('publishes nothing within budget', () => {
    const events: EngineEvent[] = [];
    new MemoryPromptBuilder(memoryWith(), { budget: 12000, publish: (e) => events.push(e) }).build(input('other'));
    expect(events).toEqual([]);
  });
});
