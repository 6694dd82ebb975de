import { describe, expect, it } from 'vitest';
import { cjkRun, letterRun, longLine, openBraces } from '../fixtures/hostile-b/inputs.js';
import { studio } from '../helpers/team.js';
import { spyOnTokenizer } from '../helpers/tokenizer-spy.js';

// Every text that reaches gpt-tokenizer from here on.
const { seen } = spyOnTokenizer();

const { countTokens, messageBound, messageTokens, tokenBound, MAX_COUNTED_CHARS } = await import('../../src/memory/tokens.js');
const { Memory } = await import('../../src/memory/memory.js');
const { MemoryPromptBuilder } = await import('../../src/memory/memory-prompt-builder.js');
const { MemorySchema } = await import('../../src/config/team-schema.js');
const { initialState } = await import('../../src/engine/step.js');
const { agentById } = await import('../../src/engine/definition.js');
type PromptInput = import('../../src/memory/prompt-builder.js').PromptInput;
type EngineEvent = import('../../src/engine/event-map.js').EngineEvent;

const HOSTILE = [
  '',
  'plain words, spaced as usual.',
  'special tokens as text: <|endoftext|> <|im_start|>system<|im_sep|> <|fim_prefix|><|endofprompt|>',
  'control \u0000\u0001\u001b[31m characters \u007f and \r\n\t whitespace',
  'emoji 👩🏽‍💻🏳️‍🌈 and flags 🇫🇷🇯🇵, astral 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'lone surrogates \ud800 and \udfff in the middle',
  'ÅÄÖ naïve façade — “quotes” ‘and’ … ellipsis',
  'digits 1234567890123456789 and 3.14159265358979',
  ' '.repeat(5000),
  '\n'.repeat(3000),
  cjkRun(3000),
  letterRun(3000),
  openBraces(3000),
  // Past MAX_COUNTED_CHARS: the count is extrapolated, the bound is three per unit.
  cjkRun(70_000),
  longLine(200_000),
  `${'a'.repeat(MAX_COUNTED_CHARS - 10)}${'灯台'.repeat(5000)}`,
];

describe('the UTF-8 byte bound on token counts (issue 23, item 6)', () => {
  it("bounds o200k's count of any text, special-token text and extrapolated counts included", () => {
    for (const text of HOSTILE) {
      const n = countTokens(text);
      expect(n, JSON.stringify(text.slice(0, 40))).toBeLessThanOrEqual(tokenBound(text));
      if (text.length <= MAX_COUNTED_CHARS) expect(tokenBound(text)).toBe(Buffer.byteLength(text, 'utf8'));
    }
    // Mostly one-byte text after a counted head of three-byte text: the extrapolation's worst case stays bounded.
    const skewed = `${'灯'.repeat(MAX_COUNTED_CHARS)}${'x'.repeat(MAX_COUNTED_CHARS)}`;
    expect(countTokens(skewed)).toBeLessThanOrEqual(tokenBound(skewed));
  });

  it('bounds a message with its framing and tool calls', () => {
    for (const text of HOSTILE.slice(0, 12)) {
      const m = { role: 'assistant' as const, content: text, toolCalls: [{ id: 'c', name: 'handoff_directive', arguments: JSON.stringify({ content: text }) }] };
      expect(messageTokens(m)).toBeLessThanOrEqual(messageBound(m));
    }
  });
});

const team = studio();

function input(personaId: string, inbox: string): PromptInput {
  const persona = agentById(team.def, personaId)!;
  const session = { ...initialState(team.def, { id: 's' }), brief: 'A lighthouse game.' };
  const call = { turnId: 't', persona: personaId, path: persona.path, attempt: 1, inbox: { kind: 'handoff' as const, from: 'ceo', text: inbox, approved: true } };
  return { def: team.def, session, call, persona, personaPrompt: team.loaded.prompts[personaId] ?? '' };
}

describe('a prompt within its budget by its bytes', () => {
  it('is built without tokenizing what only the budget check would count', () => {
    const memory = new Memory({ config: MemorySchema.parse({}) });
    memory.recordUser('A lighthouse game.');
    const builder = new MemoryPromptBuilder(memory, { budget: 12_000 });
    builder.build(input('cfo', 'Warm up.'));
    // Words never seen before: a count of a pinned line, another persona's turn or the inbox would tokenize them.
    const fresh = (k: string) => `zqx${k}vuw`;
    seen.length = 0;
    memory.recordAgent({ turnId: 't1', persona: 'ceo', text: `Plan ${fresh('turn')} for the keeper.`, turn: 1 });
    memory.recordDirective({ turnId: 't1', persona: 'ceo', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'cfo', key_decisions: [`Ship ${fresh('pin')} in May`] } });
    // Nor is the turn counted as it is stored (in front of the next call): only when its count is read.
    expect(seen.join(' ')).not.toContain(fresh('turn'));
    const events: EngineEvent[] = [];
    const messages = new MemoryPromptBuilder(memory, { budget: 12_000, publish: (e) => events.push(e) }).build(input('cfo', `Over to you: ${fresh('inbox')}.`));
    expect(messages.map((m) => m.content).join('\n')).toContain(fresh('pin'));
    expect(seen.join(' ')).not.toMatch(/zqx(pin|inbox|turn)vuw/);
    expect(events).toEqual([]);
    // Its own author's prompt fits by bytes too.
    new MemoryPromptBuilder(memory, { budget: 12_000 }).build(input('ceo', 'Back to you.'));
    expect(seen.join(' ')).not.toContain(fresh('turn'));
    // A checkpoint (or a compression: memory_compressed reports it) counts it.
    const raw = (memory.data as { raw: { text: string; tokens: number }[] }).raw.find((t) => t.text.includes(fresh('turn')))!;
    expect(seen.join(' ')).toContain(fresh('turn'));
    expect(raw.tokens).toBeGreaterThan(0);
    expect(raw.tokens).toBe(countTokens(raw.text));
  });

  it('is counted exactly once over the budget by its bytes: trimmed exactly as a full count says', () => {
    const memory = new Memory({ config: MemorySchema.parse({}) });
    memory.recordUser('A lighthouse game.');
    for (let i = 1; i <= 6; i++) memory.recordAgent({ turnId: `t${i}`, persona: i % 2 ? 'ceo' : 'cmo', text: `Turn ${i}: 灯台守 ${'the lamp, the log, the tide; '.repeat(8)}`, turn: i });
    const at = input('cfo', 'Over to you.');
    const full = new MemoryPromptBuilder(memory, { budget: 1_000_000 }).build(at);
    const exact = full.reduce((n, m) => n + messageTokens(m), 3);
    const bytes = full.reduce((n, m) => n + messageBound(m), 3);
    expect(bytes).toBeGreaterThan(exact);
    for (const budget of [exact, exact - 1, Math.floor((exact + bytes) / 2)]) {
      const events: EngineEvent[] = [];
      const messages = new MemoryPromptBuilder(memory, { budget, publish: (e) => events.push(e) }).build(at);
      const trimmed = events.filter((e) => e.type === 'memory_trimmed');
      expect(trimmed.length, `budget ${budget}`).toBe(budget < exact ? 1 : 0);
      if (budget >= exact) expect(messages).toEqual(full);
      else expect(messages.reduce((n, m) => n + messageTokens(m), 3)).toBeLessThanOrEqual(budget);
    }
  });
});
