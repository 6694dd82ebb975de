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

function hits(word: string, w: Words): boolean {
  const lower = word.toLowerCase();
  return PLAIN_WORD.test(lower) ? w.words.has(lower) : pattern(word).test(w.text);
}

function firstHit(words: readonly string[], w: Words): string | undefined {
  return words.find((word) => hits(word, w));
}

/** Rules whose keywords match the recent conversation, as proposals for their owners. Pure. */
export function matchTriggers(rules: readonly TriggerRule[], ctx: TriggerContext): Proposal[] {
  const text = ctx.texts.join('\n').toLowerCase();
  let w: Words | null = null;
  const out: Proposal[] = [];
  for (const rule of rules) {
    if (rule.owner === ctx.from) continue;
    const last = ctx.lastFired[rule.id];
    if (last !== undefined && ctx.turn - last < ctx.cooldown) continue;
    if (rule.keywords.length === 0) continue;
    w ??= { text, words: new Set(text.split(NOT_WORD)) };
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
