import type { ChatModel, ChatRequest, ChatResponse } from './chat-model.js';
import { DIRECTIVE_TOOL_NAME } from '../directive/schema.js';
import { DEMO_STORY, DEMO_STORY_NAMES, storyBeat, storyPosition } from './demo-story.js';
import { SCRIPT, VIEWS } from './demo-script.js';
import { AbortedError } from './errors.js';
import { DEMO_MODEL_LABEL } from './demo-label.js';
import { demoArguments, demoQuestion, demoWorkflowText, priorTurns } from './demo-workflow.js';
import { demoToolStep, demoVerdict, demoWrote } from './demo-tools.js';

export { DEMO_MODEL_LABEL, isDemoLabel } from './demo-label.js';

// The debate's verdict tool (src/workflow/run/debate.ts); named here so the model layer does not import the engine.
const VERDICT = 'review_verdict';

/** Inbox kinds where the user steers. Resume progress used to skip them; it now comes from demoProgressFrom (demo-story.ts). */
export const DEMO_USER_DRIVEN: readonly string[] = ['user_reply', 'interjection', 'user_requested', 'consult'];

const USER_PREFIXES = ['The user replies: ', 'The user interjects: ', 'The user consults you (control returns afterwards): ', 'The user sent your work back for rework. Reason: '];

/** The user's own words in the closing message, without the framing troupe adds. */
function userSaid(request: ChatRequest): string {
  const last = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const prefix = USER_PREFIXES.find((p) => last.startsWith(p));
  const words = prefix ? last.slice(prefix.length) : last;
  return (
    words
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim()
      .slice(0, 160) ?? ''
  );
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
/** The model id the demo model answers as (in agent_started and usage events). */
export const DEMO_MODEL_ID = 'demo';

export class DemoModel implements ChatModel {
  readonly label = DEMO_MODEL_LABEL;
  readonly offline = true;
  readonly free = true;
  /** Whatever model id a call names (a tier's gpt-4o-mini), the script answers it. */
  readonly answeredBy = DEMO_MODEL_ID;
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
    const brief = quotedBrief(request.meta.brief ?? 'the brief', 80);
    if (request.meta.purpose === 'summary') return this.reply(request, summarise(request), []);
    if (request.meta.purpose === 'workflow') return this.workflowTurn(request);
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
    signal?.addEventListener(
      'abort',
      () => {
        if (this.spoken[persona] === count) this.spoken[persona] = count - 1;
      },
      { once: true },
    );
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

  /** A workflow turn: words in character and every parsing tool offered called (asking for a change once, then accepting). */
  private workflowTurn(request: ChatRequest): ChatResponse {
    const round = priorTurns(request);
    const state = request.meta.workflow?.state ?? 'the state';
    const who = request.meta.personaName ?? request.meta.persona ?? 'The agent';
    const promptChars = request.messages.reduce((n, m) => n + m.content.length, 0);
    const usage = (text: string) => ({ promptTokens: Math.ceil(promptChars / 4), completionTokens: Math.ceil(text.length / 4) });
    // With agent tools on offer the demo visibly works: it looks at its workspace, writes its file, then answers.
    const step = demoToolStep(request, who);
    if (step) return step;
    // Offered request_users_input, the demo asks once; the answer comes back as the tool's result (seed 003).
    const asked = demoQuestion(request, who, state);
    if (asked) return { ...asked, usage: usage(asked.text) };
    const wrote = demoWrote(request);
    const text = wrote
      ? `${who} (${state}, demo): wrote ${wrote.path} in my workspace — ${wrote.revised ? 'the revision the reviewers asked for, with a test' : 'a first implementation'}.`
      : demoWorkflowText(request, round);
    if (request.onDelta) for (const word of text.split(/(?<= )/)) request.onDelta({ type: 'text', text: word });
    // Inside a tool loop the request also offers agent tools; the demo answers only the engine's own (meta.workflow.tools).
    const own = request.meta.workflow?.tools;
    const tools = (request.tools ?? []).filter((t) => t.name !== 'request_users_input' && (!own || own.includes(t.name)));
    return {
      text,
      toolCalls: tools.map((t, i) => ({ id: `demo-${i}`, name: t.name, arguments: JSON.stringify(t.name === VERDICT ? demoVerdict(request, round) : demoArguments(t, round, state)) })),
      usage: usage(text),
      finishReason: tools.length ? 'tool_calls' : 'stop',
      model: DEMO_MODEL_ID,
    };
  }

  private reply(request: ChatRequest, text: string, directives: Record<string, unknown>[]): ChatResponse {
    if (request.onDelta) for (const word of text.split(/(?<= )/)) request.onDelta({ type: 'text', text: word });
    const promptChars = request.messages.reduce((n, m) => n + m.content.length, 0);
    return {
      text,
      toolCalls: directives.map((d) => ({ name: DIRECTIVE_TOOL_NAME, arguments: JSON.stringify(d) })),
      usage: { promptTokens: Math.ceil(promptChars / 4), completionTokens: Math.ceil(text.length / 4) },
      finishReason: directives.length ? 'tool_calls' : 'stop',
      model: DEMO_MODEL_ID,
    };
  }
}

function clip(text: string, max: number): string {
  const first = text.split(/(?<=[.!?])\s/)[0]!.trim();
  if (first.length <= max) return first;
  const cut = first.lastIndexOf(' ', max - 1);
  return `${first.slice(0, cut > 0 ? cut : max - 1).trim()}…`;
}

/** The brief as the demo quotes it: one line, at most `max` characters, cut at a word with … (never mid-word). */
export function quotedBrief(brief: string, max: number): string {
  const line = brief.trim().replace(/\s+/g, ' ');
  if (line.length <= max) return line;
  const cut = line.lastIndexOf(' ', max - 1);
  return `${line.slice(0, cut > max / 2 ? cut : max - 1).replace(/[\s,;:.-]+$/, '')}…`;
}

function newest(items: string[], n: number): string[] {
  return [...new Set(items)].slice(-n);
}

/**
 * The demo summariser: reads the memory's segment lines ("- [turn N] Name (type): text") or the
 * merge lines ("decision: ..."), and answers in the summary JSON shape, short and bounded.
 */
function summarise(request: ChatRequest): string {
  const body = request.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');
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
