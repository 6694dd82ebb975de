// The demo's words: the studio story's scripted lines, and each persona's view when steered off it.

/** One scripted line: its text (given the brief) and the directive that goes with it. */
export type Line = { text: (brief: string) => string; directive: Record<string, unknown> };

/** The demo's scripted studio conversation, per persona, in the order each persona speaks. */
export const SCRIPT: Record<string, Line[]> = {
  creative_partner: [
    {
      text: (b) =>
        `Here's the concept for "${b}". Core fantasy: you are the last keeper of something fragile, and every choice protects or spends it. Pillars: (1) tactile, readable moments; (2) small decisions with long shadows; (3) warmth over spectacle. Tone: melancholy but hopeful. Game Designer, turn this into a loop.`,
      directive: {
        transition: 'HANDOFF_TO_AGENT',
        next_agent: 'game_designer',
        urgency: 0.6,
        dependency: 0.7,
        user_intent: 0.7,
        key_decisions: ['Core fantasy: the player is the keeper of something fragile'],
      },
    },
    {
      text: (b) =>
        `Fair hit. Revised concept for "${b}": the fail state is losing what you keep — slowly, visibly, recoverably. Pillar 2 now reads "choices cost something you can see". I cut the open-world idea; the game is a sequence of hand-made chapters.`,
      directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer', key_decisions: ['Structure: hand-made chapters, no open world'] },
    },
  ],
  game_designer: [
    {
      text: () =>
        `I can't build a loop on this yet. The concept has no failure state: if nothing can be lost, the "fragile" fantasy is decoration. Pillar 2 and 3 also pull in opposite directions. Sending it back.`,
      directive: { transition: 'REQUEST_REWORK', approval_status: 'REQUEST_REWORK', rework_reason: 'No failure state: define what the player can lose and how it shows.' },
    },
    {
      text: () =>
        `Approved. Core loop: explore a chapter -> gather and mend -> decide what to protect -> see the consequence next chapter. Progression through tools, not stats. Scope: 6 chapters, one optional online co-op mode for visiting friends. Lead Engineer, I need a feasibility pass before anyone prices or paints this.`,
      directive: {
        transition: 'APPROVE_AND_HANDOFF',
        approval_status: 'APPROVED',
        next_agent: 'lead_engineer',
        urgency: 0.8,
        dependency: 0.9,
        user_intent: 0.3,
        alternatives: [
          { next_agent: 'art_director', urgency: 0.4, dependency: 0.6, user_intent: 0.7, reason: 'visual style needs definition' },
          { next_agent: 'ceo', urgency: 0.9, dependency: 0.5, user_intent: 0.8, reason: 'business viability question' },
        ],
        key_decisions: ['Core loop: explore -> mend -> protect -> consequence', 'Scope: 6 hand-made chapters'],
      },
    },
  ],
  lead_engineer: [
    {
      text: () =>
        `Feasibility: the single-player chapters are straightforward — a small team, about 14 months. The online co-op feature is the expensive part: servers, matchmaking and save sync roughly add 5 months and a running cost, so it needs a budget check before we commit. Architecture: data-driven chapters, one scene per chapter, deterministic simulation so co-op stays possible later.`,
      directive: { transition: 'APPROVE_AND_HANDOFF', approval_status: 'APPROVED', next_agent: 'ceo', urgency: 0.6, dependency: 0.7, user_intent: 0.6 },
    },
    {
      text: () =>
        `Taking the CFO's numbers on board: we ship single-player first and keep the simulation deterministic so co-op can follow as an update. Milestones: vertical slice at month 4, content complete at month 11, launch at month 14. CEO, this is ready for a go / no-go.`,
      directive: {
        transition: 'APPROVE_AND_HANDOFF',
        next_agent: 'ceo',
        urgency: 0.7,
        dependency: 0.8,
        user_intent: 0.7,
        key_decisions: ['Ship single-player first; co-op later as an update', 'Launch target: month 14'],
      },
    },
  ],
  cfo: [
    {
      text: () =>
        `Cost review: single-player is within our runway with a 15% buffer. Online co-op at launch adds about 40% to the build cost plus server spend we can't yet justify. Approved for single-player; co-op only as a post-launch update if launch sales clear the bar.`,
      directive: { transition: 'APPROVE_AND_HANDOFF', approval_status: 'APPROVED', next_agent: 'ceo', key_decisions: ['Co-op deferred until launch sales clear the bar'] },
    },
  ],
  ceo: [
    {
      text: (b) => `I like "${b}" as a single-player chapter game with a 14-month plan. Before I sign, CMO: who is this for and what is the hook in one line?`,
      directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'cmo', urgency: 0.6, dependency: 0.7, user_intent: 0.7 },
    },
    {
      text: () => `Go. Scope is locked: six chapters, single-player, launch at month 14, co-op as a later update. Thank you all — the brief is worked through.`,
      directive: { transition: 'COMPLETE', approval_status: 'APPROVED', key_decisions: ['Go decision: six-chapter single-player game, launch month 14'] },
    },
  ],
  cmo: [
    {
      text: () =>
        `Audience: players of cosy, story-led games who want meaning in 20-minute sessions. Hook: "Everything you keep, you chose to keep." It trails well and fits the melancholy-hopeful tone. Approved from the market side.`,
      directive: { transition: 'APPROVE_AND_HANDOFF', approval_status: 'APPROVED', next_agent: 'ceo', key_decisions: ['Hook: "Everything you keep, you chose to keep."'] },
    },
  ],
};

/** What each persona says when the user steers it off the script. */
export const VIEWS: Record<string, string> = {
  ceo: 'this lives or dies on a sharp scope, so I want one paragraph on what we ship first and what waits.',
  cfo: 'before anything grows I want a rough cost per feature and a check against our runway.',
  cmo: 'tell me who it is for and the one-line hook, and I can tell you whether it sells.',
  creative_partner: 'the fantasy has to be clear before we design anything; I would tighten the pillars first.',
  game_designer: 'I need a core loop I can sketch in four verbs, then a scope cut list.',
  concept_artist: 'I would start with three mood sketches (dawn, storm, night) to find the look.',
  art_director: 'a limited palette and one strong silhouette rule keep the art cost predictable.',
  lead_engineer: 'the riskiest system gets prototyped first; I can size it once the loop is fixed.',
};
