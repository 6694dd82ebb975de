// A simulated V7 studio for benchmarks: what each persona says and to whom it hands, as a seeded random
// process a predictor is not told about. Each persona has habits (a hidden preference over whom it hands
// to); a message is about a topic, which usually carries on from the message it answers; the topic's
// owner is the likely next speaker; some handoffs approve the work, some send it back for rework, a few
// pin key decisions. Texts are 100-400 tokens of prose built from the topic's words.

/** A seeded random number generator (mulberry32): the same seed gives the same session. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Topic = { words: string[]; owners: string[] };

const TOPICS: Record<string, Topic> = {
  budget: { words: ['budget', 'cost', 'spend', 'runway', 'online features', 'servers'], owners: ['cfo'] },
  tech: { words: ['feasibility', 'engine', 'build pipeline', 'netcode', 'frame rate', 'technical risk'], owners: ['lead_engineer'] },
  design: { words: ['core loop', 'mechanics', 'progression', 'level pacing', 'scope'], owners: ['game_designer'] },
  art: { words: ['visual style', 'palette', 'art direction', 'silhouettes', 'lighting'], owners: ['art_director', 'concept_artist'] },
  market: { words: ['audience', 'launch plan', 'positioning', 'hook', 'trailer'], owners: ['cmo'] },
  vision: { words: ['concept', 'pillars', 'tone', 'fantasy', 'go / no-go'], owners: ['creative_partner', 'ceo'] },
};

/** Each persona's habits: the topics it talks about and whom it tends to hand to (hidden from troupe). */
const HABITS: Record<string, { topics: string[]; next: string[] }> = {
  creative_partner: { topics: ['vision', 'design', 'art'], next: ['game_designer', 'concept_artist', 'ceo'] },
  game_designer: { topics: ['design', 'tech', 'budget'], next: ['lead_engineer', 'creative_partner', 'art_director'] },
  concept_artist: { topics: ['art', 'vision'], next: ['art_director', 'game_designer'] },
  art_director: { topics: ['art', 'budget', 'tech'], next: ['concept_artist', 'lead_engineer', 'game_designer'] },
  lead_engineer: { topics: ['tech', 'budget', 'design'], next: ['game_designer', 'cfo', 'ceo'] },
  ceo: { topics: ['vision', 'market', 'budget'], next: ['cfo', 'cmo', 'creative_partner'] },
  cfo: { topics: ['budget', 'market'], next: ['ceo', 'game_designer', 'lead_engineer'] },
  cmo: { topics: ['market', 'vision'], next: ['ceo', 'creative_partner', 'cfo'] },
};

const FILLER = [
  'we keep the lighthouse at the centre of every choice',
  'the island weather should press on the player',
  'each night the keeper spends light to hold the dark back',
  'the first chapter teaches the lamp before it tests it',
  'we cut anything that does not serve the keeper fantasy',
  'the storm chapters are where the stakes rise',
  'what ships first is a vertical slice of one night',
  'playtests will tell us whether the tension holds',
];

/** The topic a text is about, read from its words (null: none recognised). */
export function topicOf(text: string): string | null {
  const lower = text.toLowerCase();
  let best: string | null = null;
  let hits = 0;
  for (const [name, topic] of Object.entries(TOPICS)) {
    const n = topic.words.filter((w) => lower.includes(w)).length;
    if (n > hits) [best, hits] = [name, n];
  }
  return best;
}

function pick<T>(rng: () => number, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

/** One simulated answer: the persona's words and its directive. */
export interface SimAnswer {
  text: string;
  directive: Record<string, unknown>;
}

/**
 * What `persona` says when it answers `inbox` (the message it got), allowed to hand to `allowed`, at the
 * `call`-th real call of a session seeded `seed`. `handedBy` is whoever gave it the work (a rework target).
 */
export function studioAnswer(seed: number, call: number, persona: string, allowed: readonly string[], inbox: string, handedBy: string | null): SimAnswer {
  const rng = seeded(seed * 100_003 + call * 7919);
  const habits = HABITS[persona] ?? { topics: Object.keys(TOPICS), next: [...allowed] };
  const carried = topicOf(inbox);
  const topicName = carried && rng() < 0.6 ? carried : pick(rng, habits.topics);
  const topic = TOPICS[topicName]!;
  const sentences: string[] = [];
  const length = 5 + Math.floor(rng() * 16);
  for (let i = 0; i < length; i++) {
    const word = pick(rng, topic.words);
    sentences.push(rng() < 0.5 ? `On the ${word}, ${pick(rng, FILLER)}.` : `${pick(rng, FILLER)[0]!.toUpperCase()}${pick(rng, FILLER).slice(1)}, and the ${word} has to follow from that.`);
  }
  const ok = (id: string) => id !== persona && allowed.includes(id);
  const owner = topic.owners.filter(ok);
  const habit = habits.next.filter(ok);
  const roll = rng();
  let next: string | undefined;
  let transition = 'HANDOFF_TO_AGENT';
  if (roll < 0.08 && handedBy && handedBy !== persona) transition = 'REQUEST_REWORK';
  else if (roll < 0.55 && owner.length) next = pick(rng, owner);
  else if (roll < 0.85 && habit.length) next = pick(rng, habit);
  else
    next = pick(
      rng,
      allowed.filter((a) => a !== persona),
    );
  if (transition === 'HANDOFF_TO_AGENT' && rng() < 0.35) transition = 'APPROVE_AND_HANDOFF';
  const directive: Record<string, unknown> =
    transition === 'REQUEST_REWORK'
      ? { transition, rework_reason: `the ${pick(rng, topic.words)} is not settled yet` }
      : { transition, next_agent: next, urgency: 0.6, dependency: 0.7, user_intent: 0.5 };
  if (rng() < 0.15) directive.key_decisions = [`${topicName}: ${pick(rng, topic.words)} fixed at turn ${call}`];
  return { text: sentences.join(' '), directive };
}

/** A summary answer (JSON) for a summariser call, derived from its prompt so it is the same every run. */
export function summaryAnswer(prompt: string): string {
  const topic = topicOf(prompt) ?? 'vision';
  return JSON.stringify({ decisions: [`${topic} direction agreed`], discussions: [`${TOPICS[topic]!.words.join(', ')} weighed`], pending: ['playtest the first night'] });
}

/** The persona a request is for, and whom it may hand to, read from the roster in its system prompt. */
export function rosterOf(system: string): { self: string | null; allowed: string[] } {
  let self: string | null = null;
  const allowed: string[] = [];
  for (const line of system.split('\n')) {
    const m = /^- .+ \(id: ([a-z0-9_]+), [A-Z_]+\)(.*)$/.exec(line);
    if (!m) continue;
    if (m[2]!.startsWith(' (you)')) self = m[1]!;
    else if (!m[2]!.includes('[not a handoff target for you]')) allowed.push(m[1]!);
  }
  return { self, allowed };
}
