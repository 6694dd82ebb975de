import { describe, expect, it } from 'vitest';
import { matchTriggers, type TriggerRule } from '../../src/arbiter/triggers.js';

const budget: TriggerRule = {
  id: 'budget_review',
  owner: 'cfo',
  keywords: ['budget', 'cost'],
  andKeywords: ['multiplayer', 'feature'],
  criteria: { urgency: 0.8, dependency: 0.85, user_intent: 0.6 },
  detour: true,
  reason: 'budget review',
};
const ctx = (texts: string[], extra: Partial<Parameters<typeof matchTriggers>[1]> = {}) => ({ from: 'game_designer', texts, turn: 10, lastFired: {}, cooldown: 6, ...extra });

describe('matchTriggers', () => {
  it('fires when both keyword groups appear in the recent turns (scenario B)', () => {
    const out = matchTriggers([budget], ctx(['Budget concerns raised, need cost analysis', 'Proposed: add a multiplayer feature']));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ target: 'cfo', source: 'rule', detour: true, ruleId: 'budget_review', proposer: 'game_designer' });
    expect(out[0]!.reason).toContain('"budget" + "multiplayer"');
  });

  it('needs the second group and whole words', () => {
    expect(matchTriggers([budget], ctx(['the budget is fine']))).toEqual([]);
    expect(matchTriggers([budget], ctx(['budgetary multiplayerish talk']))).toEqual([]);
  });

  it('never fires for the owner itself and respects the cooldown', () => {
    const texts = ['budget for the multiplayer feature'];
    expect(matchTriggers([budget], ctx(texts, { from: 'cfo' }))).toEqual([]);
    expect(matchTriggers([budget], ctx(texts, { lastFired: { budget_review: 7 } }))).toEqual([]);
    expect(matchTriggers([budget], ctx(texts, { lastFired: { budget_review: 4 } }))).toHaveLength(1);
  });

  it('matches a keyword exactly where a whole-word pattern does: punctuation, spaces, case, accents, scripts, digits', () => {
    // The reference: the keyword lower-cased and escaped, whitespace runs as \s+, no letter or digit on either side.
    const reference = (word: string, text: string) =>
      new RegExp(
        `(?:^|[^\\p{L}\\p{N}])(?:${word
          .toLowerCase()
          .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
          .replace(/\s+/g, '\\s+')})(?:$|[^\\p{L}\\p{N}])`,
        'u',
      ).test(text.toLowerCase());
    const keywords = ['budget', 'Cost', 'c++', 'e-mail', 'cost  overrun', 'café', '東京', 'v2', '42', 'İstanbul', 'naïve', 'x'];
    const texts = [
      'Budget!',
      'the budgetary plan',
      'C++ and c#',
      'send an e-mail',
      'e mail',
      'a cost\n overrun',
      'cost-overrun',
      'CAFÉ au lait',
      'cafe',
      '東京タワー',
      '東京 タワー',
      'v2.0 ships',
      'version v2x',
      '42nd',
      'answer: 42',
      'İstanbul trip',
      'istanbul',
      'naïve take',
      'x',
      'xx',
      '',
      'naive',
    ];
    for (const word of keywords) {
      for (const text of texts) {
        const rule: TriggerRule = { ...budget, id: 'r', keywords: [word], andKeywords: [] };
        expect(matchTriggers([rule], ctx([text])).length, `${word} in ${JSON.stringify(text)}`).toBe(reference(word, text) ? 1 : 0);
      }
    }
  });

  it("looks only at rules a word of the text (or a pattern keyword) can fire, and keeps the rules' order and first keyword", () => {
    const rules: TriggerRule[] = Array.from({ length: 1000 }, (_, i) => ({ ...budget, id: `r${i}`, owner: `p${i}`, keywords: [`topic${i}`, `alt${i % 7}`], andKeywords: [] }));
    rules.push({ ...budget, id: 'pattern', owner: 'q', keywords: ['art style'], andKeywords: [] });
    const read: number[] = [];
    const watched = new Proxy(rules, { get: (t, k, r) => (typeof k === 'string' && /^\d+$/.test(k) && read.push(Number(k)), Reflect.get(t, k, r)) });
    const text = ['alt3 and topic999 then topic5, in the art style of topic40'];
    const first = matchTriggers(watched, ctx(text));
    read.length = 0;
    const again = matchTriggers(watched, ctx(text));
    expect(again).toEqual(first);
    // In the rules' order, each with its own first keyword found in the text.
    expect(first.map((p) => p.ruleId).slice(0, 4)).toEqual(['r3', 'r5', 'r10', 'r17']);
    expect(first.find((p) => p.ruleId === 'r5')!.reason).toBe('budget review (matched "topic5")');
    expect(first.find((p) => p.ruleId === 'r3')!.reason).toBe('budget review (matched "alt3")');
    expect(first.map((p) => p.ruleId)).toContain('pattern');
    expect(first.map((p) => p.ruleId)).toContain('r999');
    // 1,001 rules, but only the 147 that fire are read: 143 with alt3, topic5, topic40, topic999 and the pattern rule.
    expect(read.length).toBe(first.length);
    expect(read.length).toBeLessThan(200);
  });
});
