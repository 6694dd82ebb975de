import type { TroupeEvent } from '../engine/event-map.js';
import { checkEvents } from '../report/checked-events.js';
import { demoProgressFrom } from '../llm/demo-story.js';

const READ = new Set(['agent_started', 'agent_message']);

/**
 * How far the demo story got, from a session's event log: the completed turns (persona, why it had the
 * turn, which attempt), in order. A resumed demo continues the story where it stopped; a turn in flight
 * at a crash never completed, so it is not counted and is re-run with the same line.
 */
export function demoProgress(events: TroupeEvent[]): Record<string, number> {
  const started = new Map<string, { persona: string; inbox: string; attempt: number }>();
  const turns: { persona: string; inbox: string; attempt: number }[] = [];
  // A hand-edited event is left out rather than counted wrong.
  for (const e of checkEvents(events, READ).events) {
    if (e.type === 'agent_started') started.set(e.turn_id, { persona: e.persona, inbox: e.inbox, attempt: e.attempt });
    if (e.type === 'agent_message') {
      const call = started.get(e.turn_id);
      if (call) turns.push(call);
    }
  }
  return demoProgressFrom(turns);
}
