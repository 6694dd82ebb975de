import type { TroupeEvent } from '../engine/event-map.js';
import { DEMO_USER_DRIVEN } from './demo-model.js';
import { checkEvents } from '../report/checked-events.js';

const READ = new Set(['agent_started', 'agent_message']);

/**
 * How far each persona got in the demo script, from a session's event log: its completed first-attempt
 * turns that were not user-driven. A resumed demo session continues the script where it stopped; a turn
 * in flight at a crash never completed, so it is not counted and is re-run with the same line.
 */
export function demoProgress(events: TroupeEvent[]): Record<string, number> {
  const started = new Map<string, { persona: string; inbox: string; attempt: number }>();
  const spoken: Record<string, number> = {};
  // A hand-edited event is left out rather than counted wrong.
  for (const e of checkEvents(events, READ).events) {
    if (e.type === 'agent_started') started.set(e.turn_id, { persona: e.persona, inbox: e.inbox, attempt: e.attempt });
    if (e.type === 'agent_message') {
      const call = started.get(e.turn_id);
      if (!call || call.attempt !== 1 || DEMO_USER_DRIVEN.includes(call.inbox)) continue;
      spoken[call.persona] = (spoken[call.persona] ?? 0) + 1;
    }
  }
  return spoken;
}
