import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, studio } from '../helpers/team.js';
import { spyOnTokenizer } from '../helpers/tokenizer-spy.js';

// Every text that reaches the tokenizer: a cached count never tokenizes the prefix again.
const { seen, real: raw } = spyOnTokenizer();

const { countTokens, promptTokens, MAX_COUNTED_CHARS } = await import('../../src/memory/tokens.js');
const { Memory } = await import('../../src/memory/memory.js');
const { MemoryPromptBuilder } = await import('../../src/memory/memory-prompt-builder.js');
const { MemorySchema } = await import('../../src/config/team-schema.js');
const { initialState } = await import('../../src/engine/step.js');
const { agentById } = await import('../../src/engine/definition.js');
const { generatedTeam } = await import('../../bench/team-fixtures.js');
const { compileTeam } = await import('../../src/team/compile-team.js');
const { SummariesMessage } = await import('../../src/memory/summaries-message.js');
const { PinnedLines } = await import('../../src/memory/pinned-fit.js');
const { summaryText } = await import('../../src/memory/render.js');
type PromptInput = import('../../src/memory/prompt-builder.js').PromptInput;
type EngineEvent = import('../../src/engine/event-map.js').EngineEvent;

const team = studio();

function input(personaId: string, inbox = 'Over to you.', def = team.def, prompts = team.loaded.prompts): PromptInput {
  const persona = agentById(def, personaId)!;
  const session = { ...initialState(def, { id: 's' }), brief: 'A lighthouse game.\n' };
  const call = { turnId: 't', persona: personaId, path: persona.path, attempt: 1, inbox: { kind: 'handoff' as const, from: 'ceo', text: inbox, approved: true } };
  return { def, session, call, persona, personaPrompt: prompts[personaId] ?? '' };
}

function memoryWithPins(): InstanceType<typeof Memory> {
  const memory = new Memory({ config: MemorySchema.parse({}) });
  memory.recordUser('A lighthouse game.\n');
  const endings = ['Launch in May.', 'Budget: 2M', 'Use /assets/ paths', '“Quoted” ending!', 'Ends with a colon:', 'Numbers 1234', 'CJK 灯台守'];
  endings.forEach((text, i) => {
    memory.recordAgent({ turnId: `t${i}`, persona: i % 2 ? 'ceo' : 'cfo', text: `Turn ${i}: ${text}\n- a list item\n/ a slash line`, turn: i + 1 });
    memory.recordDirective({ turnId: `t${i}`, persona: i % 2 ? 'ceo' : 'cfo', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'cmo', key_decisions: [text] } });
    memory.recordApproval({ by: i % 2 ? 'ceo' : 'cfo', of: 'cmo', status: i % 3 ? 'APPROVED' : 'REQUEST_REWORK', reason: `Reason ${i}.` });
  });
  return memory;
}

/** True when the builder trims at `budget` (it must not at the exact count, and must one token below). */
function trimsAt(memory: InstanceType<typeof Memory>, at: PromptInput, budget: number): boolean {
  const events: EngineEvent[] = [];
  new MemoryPromptBuilder(memory, { budget, publish: (e) => events.push(e) }).build(at);
  return events.some((e) => e.type === 'memory_trimmed' && e.dropped.some((d) => !d.startsWith('pinned:')));
}

describe('cached prompt token counts (issue 14, item 1)', () => {
  it('counts long ordinary documents exactly as the tokenizer does, though in chunks', () => {
    const docs = readdirSync(join(REPO_ROOT, 'prompts')).map((f) => readFileSync(join(REPO_ROOT, 'prompts', f), 'utf8'));
    // Up to the exact limit (beyond it the count is extrapolated by design), however long the README grows.
    const text = [...docs, readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'), JSON.stringify(team.loaded.team, null, 2)].join('\n\n').slice(0, MAX_COUNTED_CHARS);
    expect(text.length).toBeGreaterThan(8192);
    expect(countTokens(text)).toBe(raw(text));
  });

  it('adds cached piece counts up to the exact prompt count: it trims exactly at the budget', () => {
    const memory = memoryWithPins();
    for (const id of ['cfo', 'creative_partner', 'lead_engineer']) {
      const at = input(id);
      const exact = promptTokens(new MemoryPromptBuilder(memory, { budget: 1_000_000 }).build(at));
      expect(trimsAt(memory, at, exact), id).toBe(false);
      expect(trimsAt(memory, at, exact - 1), id).toBe(true);
    }
  });

  it("counts another persona's turn from its stored count, exactly, however the text starts", () => {
    const starts = [
      'Überlegung: the lamp',
      "don't light it",
      'HelloWorld, said the keeper',
      'naïve plan',
      'Ships pass.\nMore ships',
      'x',
      '123 chapters',
      '  leading spaces',
      '“Quoted” start',
      'Ω-level risk',
      'keeper’s oil',
      `${'a'.repeat(70)} long word`,
    ];
    for (const text of starts) {
      const memory = new Memory({ config: MemorySchema.parse({}) });
      memory.recordUser('A lighthouse game.\n');
      memory.recordAgent({ turnId: 't1', persona: 'ceo', text, turn: 1 });
      memory.recordAgent({ turnId: 't2', persona: 'cmo', text: 'And then?', turn: 2 });
      const at = input('cfo', 'Over to you.');
      const exact = promptTokens(new MemoryPromptBuilder(memory, { budget: 1_000_000 }).build(at));
      expect(trimsAt(memory, at, exact), text).toBe(false);
      expect(trimsAt(memory, at, exact - 1), text).toBe(true);
    }
  });

  it('counts an inbox that quotes the latest turn or the brief as its heading plus the quote, exactly', () => {
    const memory = memoryWithPins();
    const latest = memory.recent[memory.recent.length - 1]!.text;
    const brief = (at: PromptInput): PromptInput => ({ ...at, call: { ...at.call, inbox: { kind: 'brief', text: 'A lighthouse game.\n' } } });
    for (const at of [input('cfo', latest), input('cmo', `Not the latest: ${latest}`), brief(input('ceo'))]) {
      const exact = promptTokens(new MemoryPromptBuilder(memory, { budget: 1_000_000 }).build(at));
      expect(trimsAt(memory, at, exact), at.call.inbox.kind).toBe(false);
      expect(trimsAt(memory, at, exact - 1), at.call.inbox.kind).toBe(true);
    }
    seen.length = 0;
    new MemoryPromptBuilder(memory, { budget: 1_000_000 }).build(input('cfo', latest));
    // The quote is not tokenized again with its heading (the heading's count is cached once per process).
    expect(seen.some((t) => t.includes(`Their message:\n${latest.slice(0, 10)}`))).toBe(false);
  });

  it('counts the prefix once per persona and pinned version, a stored turn once', () => {
    const memory = memoryWithPins();
    const builder = new MemoryPromptBuilder(memory, { budget: 1_000_000 });
    builder.build(input('cfo'));
    const prefix = builder.prefix(input('cfo'));
    seen.length = 0;
    builder.build(input('cfo', 'Another inbox.'));
    memory.recordAgent({ turnId: 'new', persona: 'ceo', text: 'A new plain turn.', turn: 20 });
    builder.build(input('cfo', 'A third inbox.'));
    // Only the inboxes and the new turn reach the tokenizer: no roster, protocol, brief or pinned item.
    expect(seen.some((t) => t.includes('## Team roster') || t.includes('Directive protocol') || t.includes('Launch in May'))).toBe(false);
    expect(seen.join('\n').length).toBeLessThan(prefix.length / 10);
  });

  it('tokenizes a new pin once, its line and newline: never the waiting message whole, nor the line again at the end of a block', () => {
    const memory = memoryWithPins();
    const builder = new MemoryPromptBuilder(memory, { budget: 1_000_000 });
    builder.build(input('cfo'));
    for (const [i, text] of ['Ship the demo in June', 'Price it at 20 euros.', 'Keep 3 lighthouses', 'Chapter 7 ends at dawn 灯台'].entries()) {
      seen.length = 0;
      memory.recordDirective({ turnId: 'none', persona: 'ceo', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'cfo', key_decisions: [text] } });
      const messages = builder.build(input(i % 2 ? 'cfo' : 'cmo'));
      const withPin = seen.filter((t) => t.includes(text));
      // The line is never tokenized whole: only its pre-tokens not seen before are (issue 23's per-pre-token cache).
      expect(withPin, text).toEqual([]);
      expect(
        seen.every((t) => t.length <= 12),
        text,
      ).toBe(true);
      expect(seen.some((t) => t.includes('Pinned since the last summary'))).toBe(false);
      // Still exact: the build trims one token below its own count, not at it.
      const exact = promptTokens(messages);
      expect(trimsAt(memory, input(i % 2 ? 'cfo' : 'cmo'), exact), text).toBe(false);
      expect(trimsAt(memory, input(i % 2 ? 'cfo' : 'cmo'), exact - 1), text).toBe(true);
    }
  });

  it('counts each roster line once across 200 personas', () => {
    const loaded = generatedTeam(200);
    const def = compileTeam(loaded);
    const memory = new Memory({ config: MemorySchema.parse({}) });
    memory.recordUser('brief');
    const builder = new MemoryPromptBuilder(memory, { budget: 1_000_000 });
    builder.build(input('p0', 'x', def, loaded.prompts));
    seen.length = 0;
    for (let i = 1; i < 200; i++) builder.build(input(`p${i}`, 'x', def, loaded.prompts));
    const tokenized = seen.reduce((n, t) => n + t.length, 0);
    // Each persona adds its own prompt and its "(you)" roster line, not a whole roster.
    const roster = builder.prefix(input('p0', 'x', def, loaded.prompts)).length;
    expect(tokenized).toBeLessThan(roster * 3);
  });

  it('counts a summary once, when it is made: its block in the summaries message is not tokenized again, and the count stays exact', () => {
    const endings = ['the lamp stays red', 'chapter 12', 'playtest first.', 'who voices the keeper?', '灯台守', 'done 🎉', 'a list:'];
    const summaries = endings.map((end, i) => {
      const s = { id: i + 1, first: i * 3 + 1, last: i * 3 + 3, count: 3, parts: 1, decisions: [`decision ${i}`], discussions: [], pending: [end], tokens: 0 };
      return { ...s, tokens: raw(summaryText(s)) };
    });
    seen.length = 0;
    const message = new SummariesMessage().of(summaries);
    expect(message.tokens).toBe(4 + raw(message.text));
    // No block is tokenized again whole (those ending in neither a letter nor a digit are counted from cached pre-tokens).
    expect(seen.filter((t) => t.startsWith('### '))).toEqual([]);
  });

  it('counts an approval line from pieces cached per name, exactly, so a new pair of known names is not tokenized', () => {
    const names: Record<string, string> = { a: 'CEO', b: 'R&D.', c: 'Ünïcode Lead', d: '12 Monkeys', e: 'data/ops', f: "O'Brien", g: '灯台守', h: 'x', i: 'Trailing ' };
    const ids = Object.keys(names);
    const lines = new PinnedLines((id) => names[id] ?? id);
    const approval = (by: string, of?: string) => ({ kind: 'approval' as const, turn: 1, by, ...(of ? { of } : {}), text: '', repeats: 1 });
    // Each name once as approver and once as approved (their pieces are counted then), and every pair's count is exact.
    for (const [i, by] of ids.entries()) {
      for (const [who, of] of [
        [by, ids[(i + 1) % ids.length]!],
        [by, undefined],
        ['h', by],
      ] as const) {
        const l = lines.of(approval(who, of));
        expect(l.fullNl, l.full).toBe(raw(`${l.full}\n`));
        expect(l.fullEnd, l.full).toBe(raw(l.full));
      }
    }
    seen.length = 0;
    for (const by of ids) for (const of of ids) if (by !== of && by !== 'i') lines.of(approval(by, of));
    expect(seen.filter((t) => t.includes('approved'))).toEqual([]);
  });
});
