import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { MemorySchema } from '../../src/config/team-schema.js';
import { agentById } from '../../src/engine/definition.js';
import { initialState } from '../../src/engine/step.js';
import { Memory } from '../../src/memory/memory.js';
import { MemoryPromptBuilder } from '../../src/memory/memory-prompt-builder.js';
import type { PromptInput } from '../../src/memory/prompt-builder.js';
import { loadTokenizer } from '../../src/memory/tokens.js';
import { studio } from '../helpers/team.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const team = studio();
// A long persona prompt, as a team's own may be: what each session of a server would hold copies of.
const LONG_PROMPT = `# CFO\n\n${'You guard the budget and the runway; every plan gets a cost and a date.\n'.repeat(400)}`;

function input(brief: string, personaPrompt = LONG_PROMPT): PromptInput {
  const persona = agentById(team.def, 'cfo')!;
  const session = { ...initialState(team.def, { id: 's' }), brief };
  const call = { turnId: 't', persona: 'cfo', path: persona.path, attempt: 1, inbox: { kind: 'handoff' as const, from: 'ceo', text: 'Over to you.', approved: true } };
  return { def: team.def, session, call, persona, personaPrompt };
}

function builder(): MemoryPromptBuilder {
  return new MemoryPromptBuilder(new Memory({ config: MemorySchema.parse({}) }), { budget: 200_000, publish: () => undefined });
}

describe('prompt prefixes of many sessions of one team', () => {
  it('hold one copy of each persona system prompt in the process, not copies per session', async () => {
    await loadTokenizer();
    const builders = Array.from({ length: 150 }, builder);
    builders.forEach((b, i) => b.build(input(`Brief ${i}`)));
    gc();
    const before = process.memoryUsage().heapUsed;
    const more = Array.from({ length: 150 }, builder);
    more.forEach((b, i) => b.build(input(`Brief ${i + 150}`)));
    gc();
    const perSession = (process.memoryUsage().heapUsed - before) / more.length;
    expect(more.length + builders.length).toBe(300);
    // The prompt is ~29 KB; each session held it twice (its system text and its prefix): ~58 KB a session before.
    expect(LONG_PROMPT.length).toBeGreaterThan(28_000);
    expect(perSession).toBeLessThan(LONG_PROMPT.length / 4);
  });

  it('give each session its own brief, byte for byte what a fresh builder gives, and follow a changed persona prompt', async () => {
    await loadTokenizer();
    const a = builder();
    const b = builder();
    const first = a.build(input('Brief A'));
    expect(a.build(input('Brief A'))).toEqual(first);
    expect(builder().build(input('Brief A'))).toEqual(first);
    const other = b.build(input('Brief B'));
    expect(other[0]!.content).toContain('## The brief\nBrief B');
    expect(first[0]!.content).toContain('## The brief\nBrief A');
    expect(first[0]!.content).not.toContain('Brief B');
    const changed = b.build(input('Brief B', '# CFO\n\nA new prompt.'));
    expect(changed[0]!.content).toContain('A new prompt.');
    expect(changed[0]!.content).not.toContain('You guard the budget');
    expect(b.build(input('Brief B'))).toEqual(other);
  });
});
