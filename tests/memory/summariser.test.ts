import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { ModelSummariser, parseSummary, summaryMessages, SummaryError, type SummaryJob } from '../../src/memory/summariser.js';
import { SummaryContentSchema, type RawTurn, type Summary } from '../../src/memory/memory-state.js';
import { extractJsonObject } from '../../src/directive/parse.js';
import type { ChatResponse } from '../../src/llm/chat-model.js';

const turn = (n: number, type: RawTurn['type'], text: string): RawTurn => ({ id: n, turn: n, author: n % 2 ? 'ceo' : 'cfo', type, text, tokens: 5 });
const segment: SummaryJob = { kind: 'segment', turns: [turn(1, 'general', 'We looked at the map. Should it grow?'), turn(2, 'decision', 'Two islands only. The rest later.')] };
const names = (id: string) => ({ ceo: 'CEO', cfo: 'CFO' })[id] ?? id;
const summary = (first: number, decisions: string[]): Summary => ({ id: first, first, last: first + 4, count: 5, parts: 1, tokens: 10, decisions, discussions: [`talk ${first}`], pending: [] });

describe('parseSummary', () => {
  it('accepts the JSON shape, in fences or bare, and fills missing lists', () => {
    expect(parseSummary('```json\n{"decisions": ["a"], "discussions": [" b "]}\n```')).toEqual({ ok: true, summary: { decisions: ['a'], discussions: ['b'], pending: [] } });
  });

  it('explains what is wrong', () => {
    expect(parseSummary('no json here')).toEqual({ ok: false, error: 'no JSON object in the reply' });
    const bad = parseSummary('{"decisions": "a"}');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/^decisions: /);
  });
});

describe('parseSummary of a reply that is one JSON object', () => {
  it('reads it as the scan for the last object in prose would, and leaves every other shape to the scan', () => {
    const texts = [
      ' {"decisions": ["a {b}"], "pending": ["c"]}\n',
      '{"decisions": ["```json {x}```"]}',
      '{"decisions": ["a"]} {"decisions": ["last"]}',
      'Here: {"decisions": ["prose first"]}',
      '{"decisions": ["unclosed"}',
      '{}',
    ];
    for (const text of texts) {
      const value = extractJsonObject(text);
      const parsed = SummaryContentSchema.safeParse(value);
      const expected = parsed.success ? { ok: true, summary: { decisions: parsed.data.decisions, discussions: parsed.data.discussions, pending: parsed.data.pending } } : { ok: false };
      expect(parseSummary(text), text).toMatchObject(expected);
    }
    expect(parseSummary('{"decisions": ["a"]} {"decisions": ["last"]}')).toEqual({ ok: true, summary: { decisions: ['last'], discussions: [], pending: [] } });
  });
});

describe('parseSummary of a well-formed reply read without the schema', () => {
  it('accepts and refuses exactly what the schema does at the bounds and with hostile values', () => {
    const long = 'x'.repeat(600);
    const ok = [
      [{ decisions: Array.from({ length: 20 }, (_, i) => `d${i}`) }, { decisions: Array.from({ length: 20 }, (_, i) => `d${i}`), discussions: [], pending: [] }],
      [
        { decisions: [long], pending: ['  '], extra: { nested: true } },
        { decisions: [long], discussions: [], pending: [] },
      ],
      [JSON.parse('{"__proto__": {"decisions": ["polluted"]}, "pending": ["p"]}'), { decisions: [], discussions: [], pending: ['p'] }],
    ] as const;
    for (const [value, summary] of ok) expect(parseSummary(JSON.stringify(value)), JSON.stringify(value)).toEqual({ ok: true, summary });
    const refused = [
      [{ decisions: Array.from({ length: 21 }, (_, i) => `d${i}`) }, /^decisions: /],
      [{ discussions: [`${long}y`] }, /^discussions\.0: /],
      [{ pending: [1] }, /^pending\.0: /],
      [{ decisions: null }, /^decisions: /],
      [{ decisions: 'a' }, /^decisions: /],
      [{ decisions: [['nested']] }, /^decisions\.0: /],
    ] as const;
    for (const [value, error] of refused) {
      const parsed = parseSummary(JSON.stringify(value));
      expect(parsed.ok, JSON.stringify(value)).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(error);
    }
  });
});

describe('ModelSummariser', () => {
  it('calls the fast model id with purpose summary and segment lines naming authors and types', async () => {
    const model = new ScriptedModel([{ text: '{"decisions": ["Two islands only"], "discussions": [], "pending": ["map size"]}' }]);
    const s = new ModelSummariser({ model, modelId: 'fast-model', nameOf: names });
    expect(await s.summarise(segment)).toEqual({ decisions: ['Two islands only'], discussions: [], pending: ['map size'] });
    const call = model.calls[0]!;
    expect(call.model).toBe('fast-model');
    expect(call.meta.purpose).toBe('summary');
    expect(call.jsonMode).toBe(true);
    expect(call.messages[1]!.content).toContain('- [turn 2] CFO (decision): Two islands only. The rest later.');
  });

  it('gives one repair round carrying the validation error', async () => {
    const model = new ScriptedModel([{ text: 'Sure! Here it is: decisions are...' }, { text: '{"decisions": ["x"]}' }]);
    const usage: number[] = [];
    const s = new ModelSummariser({ model, modelId: 'm', nameOf: names, onUsage: (u) => usage.push(u.promptTokens) });
    expect((await s.summarise(segment)).decisions).toEqual(['x']);
    const repair = model.calls[1]!.messages;
    expect(repair[repair.length - 2]).toEqual({ role: 'assistant', content: 'Sure! Here it is: decisions are...' });
    expect(repair[repair.length - 1]!.content).toContain('not valid (no JSON object in the reply)');
    expect(usage).toEqual([]);
  });

  it('fails with a SummaryError after the repair round', async () => {
    const model = new ScriptedModel([{ text: 'nope' }, { text: '{"decisions": [1]}' }]);
    const s = new ModelSummariser({ model, modelId: 'm', nameOf: names });
    await expect(s.summarise(segment)).rejects.toThrow(SummaryError);
  });

  it('abandons a call that never answers', async () => {
    const model = { label: 'hangs', generate: () => new Promise<ChatResponse>(() => {}) };
    const s = new ModelSummariser({ model, modelId: 'm', nameOf: names, timeoutMs: 5 });
    await expect(s.summarise(segment)).rejects.toThrow(/timed out/);
  });

  it("never aborts a call by another call's timeout: after a call timed out the next gets a live signal, and calls made at once each their own", async () => {
    const signals: AbortSignal[] = [];
    let release: (() => void) | null = null;
    const answer: ChatResponse = { text: '{"decisions": ["a"]}', toolCalls: [], usage: null, finishReason: 'stop', model: 'm' };
    // Calls that ask for it hang (until their timeout); the others answer when released.
    const model = {
      label: 'by hand',
      generate: (request: { signal?: AbortSignal; messages: { content: string }[] }) => {
        signals.push(request.signal!);
        if (request.messages[1]!.content.includes('hang')) return new Promise<ChatResponse>(() => {});
        return new Promise<ChatResponse>((resolve) => (release = () => resolve(answer)));
      },
    };
    const s = new ModelSummariser({ model, modelId: 'm', nameOf: names, timeoutMs: 5 });
    const hanging: SummaryJob = { kind: 'segment', turns: [turn(1, 'general', 'hang')] };
    await expect(s.summarise(hanging)).rejects.toThrow(/timed out/);
    expect(signals[0]!.aborted).toBe(true);
    const next = s.summarise(segment);
    release!();
    await expect(next).resolves.toEqual({ decisions: ['a'], discussions: [], pending: [] });
    expect(signals[1]!.aborted).toBe(false);
    // A call out that hangs, another made meanwhile that answers: the hanging one's timeout leaves the other's signal live.
    const hangs = s.summarise(hanging);
    const meanwhile = s.summarise(segment);
    release!();
    await expect(meanwhile).resolves.toEqual({ decisions: ['a'], discussions: [], pending: [] });
    await expect(hangs).rejects.toThrow(/timed out/);
    expect(signals[2]!.aborted).toBe(true);
    expect(signals[3]!.aborted).toBe(false);
    const last = s.summarise(segment);
    release!();
    await last;
    expect(signals[4]!.aborted).toBe(false);
  });

  it('reports usage of summary calls', async () => {
    const model = new ScriptedModel([{ text: '{"decisions": []}', usage: { promptTokens: 40, completionTokens: 9 } }]);
    const seen: string[] = [];
    await new ModelSummariser({ model, modelId: 'm', nameOf: names, onUsage: (u, id) => seen.push(`${id}:${u.promptTokens}+${u.completionTokens}`) }).summarise(segment);
    expect(seen).toEqual(['m:40+9']);
  });

  it('passes the retry hook to the model, so summary retries can be shown too', async () => {
    const model = new ScriptedModel([(request) => (request.onRetry?.({ attempt: 1, waitMs: 500, reason: 'the connection was reset' }), { text: '{"decisions": []}' })]);
    const seen: string[] = [];
    await new ModelSummariser({ model, modelId: 'm', nameOf: names, onRetry: (i) => seen.push(`${i.attempt}:${i.waitMs}:${i.reason}`) }).summarise(segment);
    expect(seen).toEqual(['1:500:the connection was reset']);
  });
});

describe('the demo summariser', () => {
  const demo = new ModelSummariser({ model: new DemoModel(), modelId: 'demo', nameOf: names });

  it('summarises a segment into decisions, discussions and open questions', async () => {
    expect(await demo.summarise(segment)).toEqual({ decisions: ['CFO: Two islands only.'], discussions: ['We looked at the map.'], pending: ['Should it grow?'] });
  });

  it('merges summaries keeping the newest items, bounded', async () => {
    const merged = await demo.summarise({ kind: 'merge', summaries: [summary(1, ['a', 'b']), summary(6, ['c', 'd'])] });
    expect(merged).toEqual({ decisions: ['b', 'c', 'd'], discussions: ['talk 1', 'talk 6'], pending: [] });
  });

  it('puts each turn on one line with single spaces, whatever whitespace its text has', () => {
    const texts = ['plain words here', '  lead and trail  ', 'two  spaces', 'tab\there', 'line\nbreak', 'nbsp\u00a0here', 'end\n', ' ', ''];
    const lines = summaryMessages({ kind: 'segment', turns: texts.map((t, i) => turn(i + 1, 'general', t)) }, names)[1]!
      .content.split('\n')
      .slice(1);
    expect(lines.map((l) => l.slice(l.indexOf('): ') + 3))).toEqual(texts.map((t) => t.replace(/\s+/g, ' ').trim()));
  });

  it('merge requests list every summary with its range', () => {
    const text = summaryMessages({ kind: 'merge', summaries: [summary(1, ['a']), summary(6, [])] }, names)[1]!.content;
    expect(text).toContain('Summary of turns 1-5:\ndecision: a\ndiscussion: talk 1');
    expect(text).toContain('Summary of turns 6-10:\ndiscussion: talk 6');
  });
});
