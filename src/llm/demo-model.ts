import type { ChatModel, ChatRequest, ChatResponse } from './chat-model.js';
import { DIRECTIVE_TOOL_NAME } from '../directive/schema.js';
import { DEMO_STORY, DEMO_STORY_NAMES, storyBeat, storyPosition } from './demo-story.js';
import { AbortedError } from './errors.js';

type Line = { text: (brief: string) => string; directive: Record<string, unknown> };

/** The demo's scripted studio conversation, per persona, in the order each persona speaks. */
const SCRIPT: Record<string, Line[]> = {
  creative_partner: [
    {
      text: (b) =>
        `Here's the concept for "${b}". Core fantasy: you are the last keeper of something fragile, and every choice protects or spends it. Pillars: (1) tactile, readable moments; (2) small decisions with long shadows; (3) warmth over spectacle. Tone: melancholy but hopeful. Game Designer, turn this into a loop.`,
      directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer', urgency: 0.6, dependency: 0.7, user_intent: 0.7, key_decisions: ['Core fantasy: the player is the keeper of something fragile'] },
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
        transition: 'APPROVE_AND_HANDOFF', approval_status: 'APPROVED', next_agent: 'lead_engineer', urgency: 0.8, dependency: 0.9, user_intent: 0.3,
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
      directive: { transition: 'APPROVE_AND_HANDOFF', next_agent: 'ceo', urgency: 0.7, dependency: 0.8, user_intent: 0.7, key_decisions: ['Ship single-player first; co-op later as an update', 'Launch target: month 14'] },
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
      text: (b) =>
        `I like "${b}" as a single-player chapter game with a 14-month plan. Before I sign, CMO: who is this for and what is the hook in one line?`,
      directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'cmo', urgency: 0.6, dependency: 0.7, user_intent: 0.7 },
    },
    {
      text: () =>
        `Go. Scope is locked: six chapters, single-player, launch at month 14, co-op as a later update. Thank you all — the brief is worked through.`,
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

/** Inbox kinds where the user steers: the demo answers them in the user's words (and says its line only when the story is at it). */
export const DEMO_USER_DRIVEN: readonly string[] = ['user_reply', 'interjection', 'user_requested', 'consult'];

/** What each persona says when the user steers it off the script. */
const VIEWS: Record<string, string> = {
  ceo: 'this lives or dies on a sharp scope, so I want one paragraph on what we ship first and what waits.',
  cfo: 'before anything grows I want a rough cost per feature and a check against our runway.',
  cmo: 'tell me who it is for and the one-line hook, and I can tell you whether it sells.',
  creative_partner: 'the fantasy has to be clear before we design anything; I would tighten the pillars first.',
  game_designer: 'I need a core loop I can sketch in four verbs, then a scope cut list.',
  concept_artist: 'I would start with three mood sketches (dawn, storm, night) to find the look.',
  art_director: 'a limited palette and one strong silhouette rule keep the art cost predictable.',
  lead_engineer: 'the riskiest system gets prototyped first; I can size it once the loop is fixed.',
};

const USER_PREFIXES = ['The user replies: ', 'The user interjects: ', 'The user consults you (control returns afterwards): ', 'The user sent your work back for rework. Reason: '];

/** The user's own words in the closing message, without the framing troupe adds. */
function userSaid(request: ChatRequest): string {
  const last = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const prefix = USER_PREFIXES.find((p) => last.startsWith(p));
  const words = prefix ? last.slice(prefix.length) : last;
  return words.split('\n').find((l) => l.trim() !== '')?.trim().slice(0, 160) ?? '';
}

/** How a scripted line opens when the user steered the persona to it. */
function steeredOpening(request: ChatRequest, said: string): string {
  switch (request.meta.inbox) {
    case 'interjection':
    case 'user_reply':
      return said ? `Noted: "${said}". ` : '';
    case 'user_requested':
      return 'You brought me in directly, so here is my part. ';
    default:
      return '';
  }
}

/**
 * A deterministic offline model that plays the default studio team; used when no API key is set.
 * Its lines follow one story (DEMO_STORY): a persona says its next line only when the story is at
 * it. Interrupted, a line is not used up (it is taken back when the call is aborted); steered
 * elsewhere, a persona answers in character and hands back to whoever has the next step; past the
 * end of the script it says so.
 */
export class DemoModel implements ChatModel {
  readonly label = 'demo model (offline, scripted — set OPENAI_API_KEY for a real model)';
  readonly offline = true;
  readonly free = true;
  private readonly spoken: Record<string, number>;

  /** `spoken`: script lines each persona has already said (a resumed session continues the story; see demoProgressFrom). */
  constructor(spoken: Record<string, number> = {}) {
    this.spoken = { ...spoken };
  }

  /** Lines said so far per persona (what a resumed session passes back in). */
  get progress(): Record<string, number> {
    return { ...this.spoken };
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    if (request.signal?.aborted) throw new AbortedError('call aborted');
    const persona = request.meta.persona ?? 'assistant';
    const brief = (request.meta.brief ?? 'the brief').trim().replace(/\s+/g, ' ').slice(0, 80);
    if (request.meta.purpose === 'summary') return this.reply(request, summarise(request), []);
    const repair = request.messages.some((m) => m.role === 'user' && m.content.includes('did not include a valid'));
    const said = userSaid(request);
    const beat = storyBeat(this.spoken, { persona, inbox: request.meta.inbox ?? '', repair });
    if (beat !== null) {
      const line = SCRIPT[persona]![DEMO_STORY[beat]!.line]!;
      this.say(persona, request.signal);
      return this.reply(request, `${steeredOpening(request, said)}${line.text(brief)}`, [line.directive]);
    }
    return this.offScript(request, persona, brief, said);
  }

  /** Counts a line as said; an aborted call (the user interrupted) gives it back, so the story resumes with it. */
  private say(persona: string, signal?: AbortSignal): void {
    const count = (this.spoken[persona] ?? 0) + 1;
    this.spoken[persona] = count;
    signal?.addEventListener('abort', () => {
      if (this.spoken[persona] === count) this.spoken[persona] = count - 1;
    }, { once: true });
  }

  private offScript(request: ChatRequest, persona: string, brief: string, said: string): ChatResponse {
    const name = request.meta.personaName ?? persona;
    const view = VIEWS[persona] ?? 'I will give this my full attention.';
    const inbox = request.meta.inbox ?? '';
    const next = DEMO_STORY[storyPosition(this.spoken)];
    let text: string;
    if (inbox === 'user_requested') text = `${name} here. You brought me in directly on "${brief}": ${view}`;
    else if (inbox === 'consult') text = `${name}, consulted on "${said}": ${view}`;
    else if (inbox === 'interjection' || inbox === 'user_reply') text = `${name} here. Noted: "${said}". On "${brief}", ${view}`;
    else if (inbox === 'rework' && said) text = `${name} here, reworking as you asked ("${said}"): ${view}`;
    else text = `${name} here, picking up "${brief}" where the team left it: ${view}`;
    if (!next) {
      // Honest about the end: nothing scripted is left, and bouncing between personas would only repeat views.
      const end = ' (The demo script is played through: the team reached its go decision. Set OPENAI_API_KEY to go on with a real model.)';
      return this.reply(request, `${text}${end}`, [{ transition: 'RESPOND_TO_USER' }]);
    }
    if (inbox === 'consult') return this.reply(request, text, [{ transition: 'RESPOND_TO_USER' }]);
    const owner = DEMO_STORY_NAMES[next.persona] ?? next.persona;
    if (request.meta.handoffTo?.includes(next.persona)) {
      return this.reply(request, `${text} The next step is the ${owner}'s.`, [{ transition: 'HANDOFF_TO_AGENT', next_agent: next.persona }]);
    }
    return this.reply(request, `${text} (The demo story goes on with the ${owner}: !handoff ${next.persona})`, [{ transition: 'RESPOND_TO_USER' }]);
  }

  private reply(request: ChatRequest, text: string, directives: Record<string, unknown>[]): ChatResponse {
    if (request.onDelta) for (const word of text.split(/(?<= )/)) request.onDelta({ type: 'text', text: word });
    const promptChars = request.messages.reduce((n, m) => n + m.content.length, 0);
    return {
      text,
      toolCalls: directives.map((d) => ({ name: DIRECTIVE_TOOL_NAME, arguments: JSON.stringify(d) })),
      usage: { promptTokens: Math.ceil(promptChars / 4), completionTokens: Math.ceil(text.length / 4) },
      finishReason: directives.length ? 'tool_calls' : 'stop',
      model: 'demo',
    };
  }
}

function clip(text: string, max: number): string {
  const first = text.split(/(?<=[.!?])\s/)[0]!.trim();
  if (first.length <= max) return first;
  const cut = first.lastIndexOf(' ', max - 1);
  return `${first.slice(0, cut > 0 ? cut : max - 1).trim()}…`;
}

function newest(items: string[], n: number): string[] {
  return [...new Set(items)].slice(-n);
}

/**
 * The demo summariser: reads the memory's segment lines ("- [turn N] Name (type): text") or the
 * merge lines ("decision: ..."), and answers in the summary JSON shape, short and bounded.
 */
function summarise(request: ChatRequest): string {
  const body = request.messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n');
  const out = { decisions: [] as string[], discussions: [] as string[], pending: [] as string[] };
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    const turn = /^- \[turn \d+\] (.+?) \((decision|approval|rejection|general)\): (.*)$/.exec(line);
    if (turn) {
      const [, who, type, text] = turn as unknown as [string, string, string, string];
      // Who decided matters; discussion points and open questions read fine without a speaker.
      // An approval's verdict is pinned by the memory, so its words are discussion here.
      if (type === 'general' || type === 'approval') out.discussions.push(clip(text, 60));
      else out.decisions.push(`${who}: ${clip(text, 60)}`);
      for (const q of text.match(/[^.!?]*\?/g) ?? []) out.pending.push(clip(q.trim(), 60));
      continue;
    }
    const merged = /^(decision|discussion|pending): (.+)$/.exec(line);
    if (merged) out[merged[1] === 'decision' ? 'decisions' : merged[1] === 'discussion' ? 'discussions' : 'pending'].push(merged[2]!);
  }
  return JSON.stringify({ decisions: newest(out.decisions, 3), discussions: newest(out.discussions, 2), pending: newest(out.pending, 1) });
}
