import { describe, expect, it } from 'vitest';
import { EMPTY_VIEW, reduceEvent, type ViewState } from '../../src/ui/view-model.js';
import { directiveTag } from '../../src/report/decisions.js';
import type { EngineEvent, TroupeEvent } from '../../src/engine/event-map.js';

const stamp = (e: EngineEvent) => ({ ...e, session_id: 's', seq: 1, at: Date.UTC(2026, 0, 1) }) as TroupeEvent;
const fold = (events: EngineEvent[], v: ViewState = EMPTY_VIEW) => events.reduce((acc, e) => reduceEvent(acc, stamp(e), (id) => id.toUpperCase()), v);

describe('view model', () => {
  it('streams the live turn, then logs it tagged with its directive', () => {
    const live = fold([
      { type: 'agent_started', turn_id: 't1', path: 'STRATEGIC.ceo', persona: 'ceo', attempt: 1, model: 'm', inbox: 'brief' },
      { type: 'agent_delta', turn_id: 't1', persona: 'ceo', text: 'Hello ' },
      { type: 'agent_delta', turn_id: 't1', persona: 'ceo', text: 'team' },
    ]);
    expect(live.live?.text).toBe('Hello team');
    const done = fold(
      [
        { type: 'agent_message', turn_id: 't1', path: 'STRATEGIC.ceo', persona: 'ceo', text: 'Hello team', turn: 1 },
        { type: 'directive', turn_id: 't1', path: 'STRATEGIC.ceo', persona: 'ceo', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'cfo', key_decisions: ['Go'] }, source: 'tool' },
      ],
      live,
    );
    expect(done.live).toBeNull();
    expect(done.log).toMatchObject([
      { kind: 'turn', persona: 'ceo', turn: 1, text: 'Hello team', tag: 'HANDOFF_TO_AGENT → cfo', status: 'ok' },
      { kind: 'note', text: 'decision pinned: Go', tone: 'ok' },
    ]);
  });

  it('logs a turn without a valid directive when the next event is not its directive', () => {
    const v = fold([
      { type: 'agent_message', turn_id: 't1', path: 'STRATEGIC.ceo', persona: 'ceo', text: 'words', turn: 1 },
      { type: 'awaiting_user', reason: 'no directive', code: 'invalid_directive' },
    ]);
    expect(v.log.map((i) => i.kind)).toEqual(['turn', 'note']);
    expect(v.log[0]).toMatchObject({ tag: 'no valid directive', status: 'invalid' });
  });

  it('marks aborted turns and the user line right after the start as the brief', () => {
    const v = fold([
      { type: 'session_started', brief: 'the brief', mode: 'fsm', team: 'T', model: 'm', initial: 'STRATEGIC.ceo' },
      { type: 'user_input', text: 'the brief' },
      { type: 'agent_started', turn_id: 't1', path: 'STRATEGIC.ceo', persona: 'ceo', attempt: 1, model: 'm', inbox: 'brief' },
      { type: 'agent_aborted', turn_id: 't1', persona: 'ceo', reason: 'user interjected' },
      { type: 'user_input', text: 'more' },
      { type: 'usage', persona: 'ceo', model: 'm', prompt_tokens: 10, completion_tokens: 5, cost: null, total_tokens: 15, total_cost: null },
    ]);
    expect(v.live).toBeNull();
    expect(v.log).toMatchObject([
      { kind: 'user', label: 'Brief' },
      { kind: 'note', text: "CEO's answer was cut off: user interjected", tone: 'warn' },
      { kind: 'user', label: 'You' },
    ]);
  });

  it('labels a user line by what it says it is: an answer or an interjection right after the start is not the brief', () => {
    const start: EngineEvent = { type: 'session_started', brief: '', mode: 'fsm', team: 'T', model: 'm', initial: 'STRATEGIC.ceo' };
    const labels = (kinds: ('brief' | 'reply' | 'answer' | 'interjection')[]) =>
      fold([start, ...kinds.map((kind): EngineEvent => ({ type: 'user_input', text: kind, kind }))]).log.map((i) => (i.kind === 'user' ? `${i.label} › ${i.text}` : i.kind));
    expect(labels(['answer'])).toEqual(['You › answer']);
    expect(labels(['interjection', 'brief'])).toEqual(['You › interjection', 'Brief › brief']);
    expect(labels(['brief', 'reply'])).toEqual(['Brief › brief', 'You › reply']);
    // A workflow's first line is its input.
    const workflow = { name: (id: string) => id, path: (k: string) => k, workflow: true, title: 'w' };
    const folded = [start, { type: 'user_input', text: 'encode', kind: 'brief' } as EngineEvent, { type: 'user_input', text: 'Zig', kind: 'answer' } as EngineEvent].reduce(
      (acc, e) => reduceEvent(acc, stamp(e), workflow),
      EMPTY_VIEW,
    );
    expect(folded.log.map((i) => (i.kind === 'user' ? i.label : i.kind))).toEqual(['Input', 'You']);
  });

  it('tags rework directives with the reason', () => {
    expect(directiveTag({ transition: 'REQUEST_REWORK', rework_reason: 'too expensive' })).toBe('REQUEST_REWORK: too expensive');
  });
});
