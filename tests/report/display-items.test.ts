import { describe, expect, it } from 'vitest';
import type { TroupeEventName } from '../../src/engine/event-map.js';
import { EVENT_NAMES } from '../../src/kinds/schemas.js';
import { DISPLAY_START, displayFold, displayNames, displayStep, SILENT_EVENTS, type DisplayItem } from '../../src/report/display-items.js';
import { eventLines } from '../../src/report/event-lines.js';
import { inspect } from '../../src/commands/inspect.js';
import { initialState } from '../../src/engine/step.js';
import { sessionUsage } from '../../src/usage/session-usage.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import { EMPTY_VIEW, reduceEvent } from '../../src/ui/view-model.js';
import { EVENT_SAMPLES, sampleEvent } from '../helpers/event-samples.js';
import { studio } from '../helpers/team.js';

const def = studio().def;
const names = displayNames(def);
const itemsOf = (type: TroupeEventName) => displayStep(DISPLAY_START, sampleEvent(type), names).items;

describe('display items', () => {
  it('every event name either yields items or is deliberately silent', () => {
    expect(Object.keys(EVENT_SAMPLES).sort()).toEqual([...EVENT_NAMES].sort());
    for (const name of SILENT_EVENTS) expect(EVENT_NAMES).toContain(name);
    for (const name of EVENT_NAMES) {
      const items = itemsOf(name);
      expect(items.length > 0, `${name}: ${SILENT_EVENTS.has(name) ? 'silent, yet yields items' : 'yields no items and is not listed as silent'}`).toBe(!SILENT_EVENTS.has(name));
      for (const item of items) {
        expect(item.event).toBe(name);
        expect(item.text.length, name).toBeGreaterThan(0);
      }
    }
  });

  it('words each event once, naming personas and states as people read them', () => {
    const text = (type: TroupeEventName) => itemsOf(type).map((i) => `${i.mark ? `${i.mark} ` : ''}${i.text}`);
    expect(text('session_started')).toEqual(['troupe · V7 Studio · FSM · test-model']);
    expect(text('agent_started')).toEqual(['Creative Partner [a] is answering…']);
    expect(text('agent_aborted')).toEqual(["Creative Partner [a]'s answer was cut off: user interjected"]);
    expect(text('warming')).toEqual(["warming CEO's prompt failed: server error 500"]);
    expect(text('tool_call')).toEqual(['✗ Lead Engineer [b] write_file: src/light.ts (12 lines) — disk full']);
    expect(text('command_approval')).toEqual(['⚠ Lead Engineer [b] wants to run: npm test (in /w/b) — !allow or !deny']);
    expect(text('fanout')).toEqual(['⇉ implement: 2 branches at once (a, b), join all']);
    expect(text('joined')).toEqual(['⇇ implement joined: 1 done, failed: b (server error 500) — going on']);
    expect(text('verdict')).toEqual(['⚖ CEO (round 2): does not agree, wants changes — the tide loop is thin']);
    expect(text('debate_ended')).toEqual(['⚖ debate in debate over after 3 round(s): no consensus; the synthesiser wrote one, approved']);
    expect(text('directive')).toEqual(['↳ REQUEST_REWORK: too dark', '✔ decision pinned: No combat']);
    expect(text('directive_invalid')).toEqual(['Creative Partner gave no valid directive: no tool call (asking once more)']);
    expect(text('arbitration')).toEqual(['CEO 1.00 [user] ✓, bob dropped (unknown persona) — the user asked']);
    expect(text('transition')).toEqual(['CREATIVE › Creative Partner -> STRATEGIC › CEO (USER)']);
    expect(text('approval')).toEqual(["↺ you sent back Creative Partner's work: too expensive"]);
    expect(text('memory_compressed')).toEqual(['memory: 4 turn(s) summarised, 900 -> 300 tokens (1 summary)']);
    expect(text('memory_trimmed')).toEqual(['memory: prompt for CEO trimmed to 3900/4000 tokens (dropped summaries)']);
    expect(text('awaiting_user')).toEqual(['◂ waiting for you: CEO declared the work complete']);
    expect(text('command')).toEqual(['!handoff CEO']);
    expect(text('mode_changed')).toEqual(['mode is now SIMPLE']);
    expect(text('retry')).toEqual(['↻ retry 2 in 1.5 s: rate limited']);
    expect(text('error')).toEqual(['error: the server closed the stream (model)']);
    expect(text('session_detached')).toEqual(['session paused: user left — the session is saved']);
    expect(text('session_ended')).toEqual(['session ended: workflow done', '{\n  "answer": 42\n}']);
    expect(itemsOf('agent_message')[0]).toMatchObject({ kind: 'turn', who: 'Creative Partner', where: 'CREATIVE › Creative Partner', turn: 1, text: 'A keeper.\nA light.' });
  });

  it('keeps what items need from earlier events: the brief after the start, a transition labelled by the directive before it', () => {
    const fold = displayFold(names);
    const at = (type: TroupeEventName, payload: object = {}) => fold({ ...sampleEvent(type), ...payload } as never);
    expect(at('user_input')).toMatchObject([{ kind: 'user', brief: false }]);
    at('session_started');
    expect(at('user_input')).toMatchObject([{ kind: 'user', brief: true }]);
    expect(at('user_input')).toMatchObject([{ kind: 'user', brief: false }]);
    expect(at('transition', { kind: 'agent' })).toMatchObject([{ label: 'handoff', reason: null }]);
    at('directive');
    expect(at('transition', { kind: 'agent' })).toMatchObject([{ label: 'REQUEST_REWORK', text: 'CREATIVE › Creative Partner -> STRATEGIC › CEO (REQUEST_REWORK)' }]);
  });

  it('says an error once: the retries after the first for the same reason, and the failed move and the pause, point to it', () => {
    const fold = displayFold(names);
    const text = (type: TroupeEventName, payload: object = {}) => fold({ ...sampleEvent(type), ...payload } as never).map((i) => i.text);
    const down = 'cannot reach the model server at 127.0.0.1:9 — check OPENAI_BASE_URL';
    expect(text('retry', { attempt: 1, reason: down })).toEqual([`retry 1 in 1.5 s: ${down}`]);
    expect(text('retry', { attempt: 2, reason: down })).toEqual(['retry 2 in 1.5 s (same reason)']);
    expect(text('error', { message: `${down} (after 2 retries)` })).toEqual([expect.stringContaining(down)]);
    const failed = `Creative Partner's turn failed: ${down} (after 2 retries); !continue retries`;
    expect(fold({ ...sampleEvent('transition'), kind: 'system', reason: failed } as never)).toMatchObject([{ reason: "Creative Partner's turn failed: the error above; !continue retries" }]);
    expect(text('awaiting_user', { reason: failed, code: 'turn_failed' })).toEqual(["waiting for you: Creative Partner's turn failed: the error above; !continue retries"]);
    // Once the user acts, a new failure is told in full again.
    text('user_input', { text: 'try again' });
    expect(text('retry', { attempt: 1, reason: down })).toEqual([`retry 1 in 1.5 s: ${down}`]);
    expect(text('awaiting_user', { reason: failed })).toEqual([`waiting for you: ${failed}`]);
  });

  it('names the reviewer of a debate turn, and numbers the rounds of a later debate on from the earlier ones in the state', () => {
    const fold = displayFold(names);
    const turn = fold({ ...sampleEvent('agent_message'), path: 'review', persona: 'ceo' } as never);
    expect(turn).toMatchObject([{ kind: 'turn', where: 'review · CEO' }]);
    const verdict = (round: number) => fold({ ...sampleEvent('verdict'), state: 'review', round, agree: round === 2, approve: false } as never)[0]!.text;
    expect(verdict(1)).toBe('CEO (round 1): does not agree, wants changes — the tide loop is thin');
    expect(verdict(2)).toMatch(/^CEO \(round 2\): agrees/);
    expect(fold({ ...sampleEvent('debate_ended'), state: 'review', rounds: 2 } as never)[0]!.text).toMatch(/^debate in review over after 2 round\(s\)/);
    // After the revision, the next debate in the same state: its first round is the third.
    expect(verdict(1)).toMatch(/^CEO \(round 3\): does not agree/);
    expect(fold({ ...sampleEvent('debate_ended'), state: 'review', rounds: 1 } as never)[0]!.text).toMatch(/^debate in review over after 1 more round\(s\), at round 3:/);
  });

  it('is silent where nothing happened to show: an arbitration without proposals, an approval between agents', () => {
    const quiet = (type: TroupeEventName, payload: object) => displayStep(DISPLAY_START, { ...sampleEvent(type), ...payload } as never, names).items;
    expect(quiet('arbitration', { decision: { ...EVENT_SAMPLES.arbitration.decision, proposals: [] } })).toEqual([]);
    expect(quiet('approval', { by: 'ceo' })).toEqual([]);
    expect(quiet('tool_call', { phase: 'started' })).toMatchObject([{ kind: 'progress', mark: '⚙' }]);
  });
});

describe('the views show the same words', () => {
  // What each view leaves out on purpose: the CLI prints no live progress and no brief twice; the UI has
  // its own header, live area and arbitration panel.
  const cliSkips = (i: DisplayItem) => i.kind === 'progress' || (i.kind === 'user' && i.brief);
  const uiSkips = (i: DisplayItem) => i.kind === 'header' || i.kind === 'progress' || i.kind === 'arbitration';

  it('the CLI transcript and the UI log carry every item text', () => {
    for (const name of EVENT_NAMES) {
      const e = sampleEvent(name);
      const items = displayStep(DISPLAY_START, e, names).items;
      const cli = eventLines(def)(e).join('\n');
      // A team turn is logged once its directive (or the next event) arrives; its directive is its tag.
      const feed = name === 'directive' ? [sampleEvent('agent_message'), e] : [e, sampleEvent('note', 2)];
      const ui = feed.reduce((v, x) => reduceEvent(v, x, names), EMPTY_VIEW).log;
      const uiText = ui.map((l) => (l.kind === 'turn' ? `${l.tag}\n${l.text}` : 'text' in l ? l.text : l.lines.join('\n'))).join('\n');
      for (const item of items) {
        const words = item.kind === 'output' ? item.lines.join('\n').split('\n')[1]!.trim() : item.text.split('\n')[0]!;
        // The CLI starts its end-of-session headings with a capital ("Session paused: ...").
        if (!cliSkips(item)) expect(cli.toLowerCase(), `${name} in the CLI`).toContain(words.toLowerCase());
        if (!uiSkips(item)) expect(uiText, `${name} in the UI`).toContain(words);
      }
    }
  });

  it('prints the transcript as before: margins, marks and indented words', () => {
    const lines = eventLines(def);
    expect(lines(sampleEvent('session_started'))).toEqual(['troupe · V7 Studio · FSM · test-model', 'Brief: a lighthouse game', '']);
    expect(lines(sampleEvent('user_input'))).toEqual([]);
    expect(lines(sampleEvent('agent_message'))).toEqual(['▸ CREATIVE › Creative Partner (turn 1)', '  A keeper.', '  A light.']);
    expect(lines(sampleEvent('directive'))).toEqual(['  ↳ REQUEST_REWORK: too dark', '  ✔ decision pinned: No combat']);
    expect(lines(sampleEvent('arbitration'))).toEqual(['  arbiter: CEO 1.00 [user] ✓, bob dropped (unknown persona) — the user asked']);
    expect(lines(sampleEvent('transition'))).toEqual(['CREATIVE › Creative Partner -> STRATEGIC › CEO (USER)', '  reason: the user asked', '']);
    expect(lines(sampleEvent('awaiting_user'))).toEqual(['◂ waiting for you: CEO declared the work complete']);
    expect(lines(sampleEvent('note'))).toEqual(['  • session resumed at turn 3']);
    expect(lines(sampleEvent('session_detached'))).toEqual(['Session paused: user left — the session is saved']);
    expect(lines(sampleEvent('session_ended'))).toEqual(['Session ended: workflow done', 'Workflow output:', '  {', '    "answer": 42', '  }']);
  });
});

describe('inspection commands word events as the transcript does', () => {
  it('!debate lists verdicts and the end of a debate; !branches the joins and the files branches wrote', () => {
    const sources = { def, session: initialState(def, { id: 's' }), usage: sessionUsage(new UsageMeter()) };
    const events = (['fanout', 'tool_call', 'joined', 'verdict', 'debate_ended'] as const).map((name, i) => sampleEvent(name, i + 1));
    expect(inspect('debate', { ...sources, events }).lines).toEqual([
      '⚖ CEO (round 2): does not agree, wants changes — the tide loop is thin',
      '⚖ debate in debate over after 3 round(s): no consensus; the synthesiser wrote one, approved',
    ]);
    expect(inspect('branches', { ...sources, events }).lines).toEqual([
      '  ✗ Lead Engineer [b] write_file: src/light.ts (12 lines) — disk full',
      '⇇ implement joined: 1 done, failed: b (server error 500) — going on',
    ]);
  });
});
