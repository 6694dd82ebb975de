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
const escaped = (word: string) => word.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');
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

function firstHit(words: readonly string[], text: string): string | undefined {
  return words.find((w) => pattern(w).test(text));
}

// One test per rule for the common case (no keyword of the rule in the text) instead of one per keyword.
const anyCache = new WeakMap<readonly string[], RegExp>();
function anyHit(words: readonly string[], text: string): boolean {
  let re = anyCache.get(words);
  if (!re) {
    re = wholeWord(words.map(escaped).join('|'));
    anyCache.set(words, re);
  }
  return re.test(text);
}

/** Rules whose keywords match the recent conversation, as proposals for their owners. Pure. */
export function matchTriggers(rules: readonly TriggerRule[], ctx: TriggerContext): Proposal[] {
  const text = ctx.texts.join('\n').toLowerCase();
  const out: Proposal[] = [];
  for (const rule of rules) {
    if (rule.owner === ctx.from) continue;
    const last = ctx.lastFired[rule.id];
    if (last !== undefined && ctx.turn - last < ctx.cooldown) continue;
    if (rule.keywords.length === 0 || !anyHit(rule.keywords, text)) continue;
    const hit = firstHit(rule.keywords, text);
    if (!hit) continue;
    const also = rule.andKeywords.length > 0 ? firstHit(rule.andKeywords, text) : undefined;
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
