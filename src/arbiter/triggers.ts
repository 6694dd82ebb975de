import type { Criteria, Proposal } from './proposal.js';

/** A compiled trigger rule owned by a persona. */
export interface TriggerRule {
  id: string;
  owner: string;
  keywords: readonly string[];
  andKeywords: readonly string[];
  criteria: Criteria;
  detour: boolean;
  reason: string;
}

/** What trigger matching reads: the active persona, recent texts and when rules last fired. */
export interface TriggerContext {
  from: string;
  texts: readonly string[];
  turn: number;
  lastFired: Readonly<Record<string, number>>;
  cooldown: number;
}

/** A keyword as a regex source: lower case, escaped, any run of spaces matching any whitespace. */
const escaped = (word: string) =>
  word
    .toLowerCase()
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\s+/g, '\\s+');
/** A whole-word pattern (no letter or digit on either side) around a regex source. */
const wholeWord = (source: string) => new RegExp(`(?:^|[^\\p{L}\\p{N}])(?:${source})(?:$|[^\\p{L}\\p{N}])`, 'u');

const patternCache = new Map<string, RegExp>();
function pattern(word: string): RegExp {
  let re = patternCache.get(word);
  if (!re) {
    re = wholeWord(escaped(word));
    patternCache.set(word, re);
  }
  return re;
}

// A keyword of letters and digits only is a whole word of the text exactly when it is one of the text's
// maximal runs of letters and digits: a set lookup instead of a regex scan per keyword and turn.
const PLAIN_WORD = /^[\p{L}\p{N}]+$/u;
const NOT_WORD = /[^\p{L}\p{N}]+/u;

/** The text (lower case) and its words, split once per match. */
interface Words {
  text: string;
  words: ReadonlySet<string>;
}

/** A keyword ready to look up: its lower case form as a word of the text, or its whole-word pattern. */
interface Keyword {
  word: string;
  lower: string | null;
  re: RegExp | null;
}

// Rules are compiled once per definition: their keywords are prepared once, not lower-cased and tested per turn.
const prepared = new WeakMap<readonly string[], readonly Keyword[]>();
function keywordsOf(words: readonly string[]): readonly Keyword[] {
  let out = prepared.get(words);
  if (!out) {
    out = words.map((word) => {
      const lower = word.toLowerCase();
      return PLAIN_WORD.test(lower) ? { word, lower, re: null } : { word, lower: null, re: pattern(word) };
    });
    prepared.set(words, out);
  }
  return out;
}

function firstHit(words: readonly string[], w: Words): string | undefined {
  for (const k of keywordsOf(words)) if (k.lower !== null ? w.words.has(k.lower) : k.re!.test(w.text)) return k.word;
  return undefined;
}

/** Which rules can match: those with a word keyword, by that word; those with a pattern keyword always. */
interface RuleIndex {
  byWord: ReadonlyMap<string, readonly number[]>;
  always: readonly number[];
}

const indexes = new WeakMap<readonly TriggerRule[], RuleIndex>();
function indexOf(rules: readonly TriggerRule[]): RuleIndex {
  let index = indexes.get(rules);
  if (!index) {
    const byWord = new Map<string, number[]>();
    const always: number[] = [];
    rules.forEach((rule, i) => {
      const keywords = keywordsOf(rule.keywords);
      if (keywords.some((k) => k.lower === null)) always.push(i);
      else for (const k of new Set(keywords.map((k) => k.lower!))) byWord.set(k, [...(byWord.get(k) ?? []), i]);
    });
    index = { byWord, always };
    indexes.set(rules, index);
  }
  return index;
}

/** Rules whose keywords match the recent conversation, as proposals for their owners. Pure. */
export function matchTriggers(rules: readonly TriggerRule[], ctx: TriggerContext): Proposal[] {
  const text = ctx.texts.join('\n').toLowerCase();
  const w: Words = { text, words: new Set(text.split(NOT_WORD)) };
  // Only rules one of the text's words (or a pattern) can fire are looked at, in the rules' order.
  const index = indexOf(rules);
  const candidates = [...index.always];
  for (const word of w.words) {
    const owners = index.byWord.get(word);
    if (owners) candidates.push(...owners);
  }
  const out: Proposal[] = [];
  for (const i of [...new Set(candidates)].sort((a, b) => a - b)) {
    const rule = rules[i]!;
    if (rule.owner === ctx.from) continue;
    const last = ctx.lastFired[rule.id];
    if (last !== undefined && ctx.turn - last < ctx.cooldown) continue;
    if (rule.keywords.length === 0) continue;
    const hit = firstHit(rule.keywords, w);
    if (!hit) continue;
    const also = rule.andKeywords.length > 0 ? firstHit(rule.andKeywords, w) : undefined;
    if (rule.andKeywords.length > 0 && !also) continue;
    const matched = also ? `"${hit}" + "${also}"` : `"${hit}"`;
    out.push({
      target: rule.owner,
      source: 'rule',
      criteria: rule.criteria,
      reason: `${rule.reason} (matched ${matched})`,
      proposer: ctx.from,
      detour: rule.detour,
      ruleId: rule.id,
    });
  }
  return out;
}
