import type { TroupeEvent } from '../engine/event-map.js';
import type { Memory } from './memory.js';

/**
 * Rebuilds a memory from a session's events, in the order they happened: the brief and user lines,
 * persona messages with their directives, approvals. Used when a stored session has no saved memory
 * (memory switched on later, or a file migrated from an older format without it).
 */
export function seedMemory(memory: Memory, events: readonly TroupeEvent[]): void {
  for (const e of events) feedMemory(memory, e);
}

/** Feeds one event to a memory (the events memory records; others are ignored). */
export function feedMemory(memory: Memory, e: TroupeEvent): void {
  switch (e.type) {
    case 'user_input':
      memory.recordUser(e.text);
      break;
    case 'agent_message':
      memory.recordAgent({ turnId: e.turn_id, persona: e.persona, text: e.text, turn: e.turn });
      break;
    case 'directive':
      memory.recordDirective({ turnId: e.turn_id, persona: e.persona, directive: e.directive });
      break;
    case 'approval':
      memory.recordApproval(e);
      break;
    default:
      break;
  }
}
