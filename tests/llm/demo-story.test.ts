import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { DEMO_STORY, demoProgressFrom } from '../../src/llm/demo-story.js';
import { PacedModel } from '../../src/llm/paced-model.js';
import { AbortedError } from '../../src/llm/errors.js';
import type { EngineInput } from '../../src/engine/input-events.js';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { transcriptOf } from '../../src/memory/transcript.js';
import { studioRunner } from '../helpers/team.js';

const BRIEF = 'A lighthouse game';

// The opening words of each beat's line, in story order (enough to tell the lines apart).
const OPENINGS = [
  "Here's the concept for",
  "I can't build a loop on this yet",
  'Fair hit.',
  'Approved. Core loop',
  'Feasibility: the single-player chapters',
  'Cost review:',
  "Taking the CFO's numbers on board",
  'I like',
  'Audience:',
  'Go. Scope is locked',
];

/** The story beats a transcript says, in the order it says them. */
function beats(events: TroupeEvent[]): number[] {
  return transcriptOf(events)
    .filter((e) => e.kind === 'agent' && e.status === 'ok')
    .flatMap((e) => {
      const at = OPENINGS.findIndex((o) => e.text.includes(o));
      return at >= 0 ? [at] : [];
    });
}

/** A demo paced one macrotask per word, so the user can act in the middle of a turn. */
function pacedDemo(demo = new DemoModel()): PacedModel {
  const sleep = (_ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(new AbortedError('call aborted'));
      setImmediate(() => (signal?.aborted ? reject(new AbortedError('call aborted')) : resolve()));
    });
  return new PacedModel(demo, 1, sleep);
}

/** Runs the demo; `at(persona, nth)` = the input sent in the middle of that persona's nth turn (1-based). */
async function play(interruptions: { persona: string; nth?: number; input: EngineInput }[], demo = new DemoModel()) {
  const { runner, events } = await studioRunner(pacedDemo(demo));
  const started = new Map<string, number>();
  const pending = [...interruptions];
  runner.subscribe((e) => {
    if (e.type === 'agent_started') started.set(e.persona, (started.get(e.persona) ?? 0) + 1);
    if (e.type !== 'agent_delta') return;
    const i = pending.findIndex((p) => p.persona === e.persona && (p.nth ?? 1) === started.get(e.persona));
    if (i >= 0) runner.send(pending.splice(i, 1)[0]!.input);
  });
  runner.start(BRIEF);
  for (let guard = 0; guard < 12; guard++) {
    await runner.settled();
    if (runner.getSnapshot().status !== 'awaiting_user' || runner.getSnapshot().awaiting?.code === 'complete') break;
    runner.send({ type: 'user_continue' });
  }
  return { runner, events, demo };
}

const inOrder = (seq: number[]) => seq.every((b, i) => b === i);

describe('the demo story stays coherent under interruptions (issue 10, item 16)', () => {
  it('plays every line once, in story order, without interruptions', async () => {
    const { events } = await play([]);
    expect(beats(events)).toEqual(DEMO_STORY.map((_, i) => i));
  });

  const cases: [string, { persona: string; nth?: number; input: EngineInput }[]][] = [
    ['an interjection during the first turn', [{ persona: 'creative_partner', input: { type: 'user_message', text: 'make the keeper a child' } }]],
    ["an interjection during the designer's criticism", [{ persona: 'game_designer', input: { type: 'user_message', text: 'be kind' } }]],
    ['!handoff to the CFO during the first turn', [{ persona: 'creative_partner', input: { type: 'user_handoff', target: 'cfo' } }]],
    ["!handoff to the CEO during the designer's approval", [{ persona: 'game_designer', nth: 2, input: { type: 'user_handoff', target: 'ceo' } }]],
    ["!rework during the lead engineer's feasibility pass", [{ persona: 'lead_engineer', input: { type: 'user_rework', reason: 'too slow' } }]],
    ['!call_agent the CMO during the CFO review', [{ persona: 'cfo', input: { type: 'user_call_agent', target: 'cmo', message: 'who buys this?' } }]],
    ['!switch_to TECHNICAL during the first turn', [{ persona: 'creative_partner', input: { type: 'user_switch_major', major: 'TECHNICAL' } }]],
    [
      'two interjections in a row',
      [
        { persona: 'creative_partner', input: { type: 'user_message', text: 'one' } },
        { persona: 'creative_partner', nth: 2, input: { type: 'user_message', text: 'two' } },
      ],
    ],
  ];
  for (const [name, interruptions] of cases) {
    it(`${name}: no line repeats or comes early, and the story reaches its end`, async () => {
      const { runner, events } = await play(interruptions);
      const said = beats(events);
      expect(inOrder(said), `${name}: ${said.join(',')}`).toBe(true);
      expect(said).toHaveLength(DEMO_STORY.length);
      expect(runner.getSnapshot().awaiting?.code).toBe('complete');
    });
  }

  it('an interrupted line is not used up: the persona says it when the story comes back to it', async () => {
    const { events } = await play([{ persona: 'creative_partner', input: { type: 'user_message', text: 'make the keeper a child' } }]);
    const aborted = events.filter((e) => e.type === 'agent_aborted');
    expect(aborted).toHaveLength(1);
    const first = transcriptOf(events).find((e) => e.kind === 'agent' && e.status === 'ok')!;
    expect(first.text).toBe(
      `Noted: "make the keeper a child". Here's the concept for "${BRIEF}". Core fantasy: you are the last keeper of something fragile, and every choice protects or spends it. Pillars: (1) tactile, readable moments; (2) small decisions with long shadows; (3) warmth over spectacle. Tone: melancholy but hopeful. Game Designer, turn this into a loop.`,
    );
  });

  it('steered to a persona whose line is not next, it answers in character and hands to whoever has the next step', async () => {
    const { events } = await play([{ persona: 'creative_partner', input: { type: 'user_handoff', target: 'cfo' } }]);
    const cfo = transcriptOf(events).find((e) => e.persona === 'cfo')!;
    expect(cfo.text).toBe(
      `CFO here. You brought me in directly on "${BRIEF}": before anything grows I want a rough cost per feature and a check against our runway. The next step is the Creative Partner's.`,
    );
  });

  it('says so honestly once the script is played through, instead of bouncing between personas', async () => {
    const { runner, events } = await play([]);
    const before = transcriptOf(events).length;
    runner.send({ type: 'user_message', text: 'and now?' });
    await runner.settled();
    const after = transcriptOf(events)
      .filter((e) => e.kind === 'agent')
      .slice(-1)[0]!;
    expect(after.text).toMatch(/^CEO here\. Noted: "and now\?"\. .* \(The demo script is played through: the team reached its go decision\. Set OPENAI_API_KEY to go on with a real model\.\)$/);
    expect(transcriptOf(events).length).toBe(before + 2);
    expect(runner.getSnapshot().awaiting?.code).toBe('respond_to_user');
    runner.send({ type: 'user_continue' });
    await runner.settled();
    expect(events.filter((e) => e.type === 'agent_started').length).toBe(events.filter((e) => e.type === 'agent_message').length);
    expect(runner.getSnapshot().awaiting?.code).toBe('respond_to_user');
  });

  it('resume progress from the completed turns matches what the model said (demoProgressFrom)', async () => {
    for (const [, interruptions] of cases) {
      const demo = new DemoModel();
      const { events } = await play(interruptions, demo);
      const started = new Map<string, { persona: string; inbox: string; attempt: number }>();
      const turns: { persona: string; inbox: string; attempt: number }[] = [];
      for (const e of events as TroupeEvent[]) {
        if (e.type === 'agent_started') started.set(e.turn_id, { persona: e.persona, inbox: e.inbox, attempt: e.attempt });
        if (e.type === 'agent_message') turns.push(started.get(e.turn_id)!);
      }
      expect(demoProgressFrom(turns)).toEqual(demo.progress);
    }
  });
});
