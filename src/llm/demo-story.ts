/**
 * The order of the demo's story: each persona's scripted lines as beats of one sequence. A line is
 * only said when every beat before it has been said, so an interruption can delay the story but
 * never reorder it ("Fair hit" only after the criticism, the CEO's go only after the numbers).
 */

/** The beats in story order: whose line comes next, as (persona, index into that persona's lines). */
export const DEMO_STORY: readonly { persona: string; line: number }[] = [
  { persona: 'creative_partner', line: 0 },
  { persona: 'game_designer', line: 0 },
  { persona: 'creative_partner', line: 1 },
  { persona: 'game_designer', line: 1 },
  { persona: 'lead_engineer', line: 0 },
  { persona: 'cfo', line: 0 },
  { persona: 'lead_engineer', line: 1 },
  { persona: 'ceo', line: 0 },
  { persona: 'cmo', line: 0 },
  { persona: 'ceo', line: 1 },
];

/** Display names of the personas the story follows (for "the next step is …" lines). */
export const DEMO_STORY_NAMES: Readonly<Record<string, string>> = {
  creative_partner: 'Creative Partner',
  game_designer: 'Game Designer',
  lead_engineer: 'Lead Engineer',
  cfo: 'CFO',
  ceo: 'CEO',
  cmo: 'CMO',
};

/** Inbox kinds that are asides: a consulted persona answers and control returns, so the story does not move. */
const ASIDES = new Set(['consult']);

/** Beats said so far, from how many lines each persona has said: the first beat not yet said. */
export function storyPosition(spoken: Readonly<Record<string, number>>): number {
  const seen: Record<string, number> = {};
  for (let i = 0; i < DEMO_STORY.length; i++) {
    const { persona } = DEMO_STORY[i]!;
    seen[persona] = (seen[persona] ?? 0) + 1;
    if (seen[persona]! > (spoken[persona] ?? 0)) return i;
  }
  return DEMO_STORY.length;
}

/** One persona call as the story sees it. */
export interface StoryCall {
  persona: string;
  /** The inbox kind of the call. */
  inbox: string;
  /** A repair round (attempt > 1) never says a scripted line. */
  repair: boolean;
}

/** The beat this call says (its index in DEMO_STORY), or null when it answers off-script. */
export function storyBeat(spoken: Readonly<Record<string, number>>, call: StoryCall): number | null {
  const at = storyPosition(spoken);
  const beat = DEMO_STORY[at];
  if (!beat || beat.persona !== call.persona || call.repair || ASIDES.has(call.inbox)) return null;
  return at;
}

/**
 * How far each persona got in the story, from a session's completed persona turns in order (what
 * a resumed demo continues from). An aborted turn never completed, so it is not in the list.
 */
export function demoProgressFrom(turns: readonly { persona: string; inbox: string; attempt: number }[]): Record<string, number> {
  const spoken: Record<string, number> = {};
  for (const t of turns) {
    if (storyBeat(spoken, { persona: t.persona, inbox: t.inbox, repair: t.attempt !== 1 }) !== null) spoken[t.persona] = (spoken[t.persona] ?? 0) + 1;
  }
  return spoken;
}
