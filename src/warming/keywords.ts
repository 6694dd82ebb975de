import type { MachineDefinition } from '../engine/definition.js';

// Words that say nothing about who should speak next.
const STOP = new Set([
  'the',
  'and',
  'for',
  'with',
  'that',
  'this',
  'from',
  'into',
  'their',
  'them',
  'they',
  'what',
  'when',
  'where',
  'which',
  'who',
  'whom',
  'your',
  'you',
  'its',
  'it',
  'are',
  'was',
  'were',
  'has',
  'have',
  'had',
  'not',
  'but',
  'all',
  'any',
  'can',
  'will',
  'how',
  'own',
  'out',
  'our',
  'one',
  'two',
  'each',
  'every',
  'also',
  'than',
  'then',
  'there',
  'over',
  'under',
  'about',
  'such',
]);

/** A word as compared: lower case, a plural or third-person "s" dropped. */
export function stem(word: string): string {
  const w = word.toLowerCase();
  return w.length > 4 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w;
}

/** The distinct stems of a text's words of four letters or more. */
export function stemsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/[\p{L}][\p{L}\p{N}'-]{3,}/gu)) if (!STOP.has(m[0].toLowerCase())) out.add(stem(m[0]));
  return out;
}

/** What a text may say about each persona: its name and id, and the words of its description that set it apart. */
export interface PersonaKeywords {
  id: string;
  /** Lower-case names it is called by (display name, id with spaces). */
  names: string[];
  /** Description stems no more than a third of the team's descriptions share. */
  words: Set<string>;
}

const cache = new WeakMap<MachineDefinition, PersonaKeywords[]>();

/** The keywords of every persona of a definition (built once per definition). */
export function keywordsOf(def: MachineDefinition): PersonaKeywords[] {
  let index = cache.get(def);
  if (index) return index;
  const described = def.agents.map((a) => ({ a, stems: stemsOf(a.description) }));
  const spread = new Map<string, number>();
  for (const { stems } of described) for (const s of stems) spread.set(s, (spread.get(s) ?? 0) + 1);
  const limit = Math.max(1, Math.floor(def.agents.length / 3));
  index = described.map(({ a, stems }) => ({
    id: a.id,
    names: [...new Set([a.name.toLowerCase(), a.id.replace(/_/g, ' ')])],
    words: new Set([...stems].filter((s) => (spread.get(s) ?? 0) <= limit)),
  }));
  cache.set(def, index);
  return index;
}

/** True when `text` (lower case) names the persona as a whole word or phrase. */
export function names(text: string, k: PersonaKeywords): boolean {
  return k.names.some((n) => {
    let at = text.indexOf(n);
    while (at >= 0) {
      const before = text[at - 1];
      const after = text[at + n.length];
      if ((before === undefined || !/[\p{L}\p{N}]/u.test(before)) && (after === undefined || !/[\p{L}\p{N}]/u.test(after))) return true;
      at = text.indexOf(n, at + 1);
    }
    return false;
  });
}
