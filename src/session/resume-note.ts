import type { MachineDefinition } from '../engine/definition.js';
import type { SessionState } from '../engine/session.js';
import { statusFactsOf, statusWords } from '../report/status-words.js';

/**
 * The note a reopened session publishes: the turn it is at, and the turn it re-runs (the one in flight when it
 * was let go), else its status as it was found, worded as troupe sessions words it ("waiting: complete").
 */
export function resumeNote(def: MachineDefinition, s: SessionState): string {
  const name = s.inFlight ? (def.agentIndex.get(s.inFlight.persona)?.name ?? s.inFlight.persona) : '';
  const what = s.inFlight && s.status === 'running' ? `re-running ${name}'s turn ${s.inFlight.turnId}, which was in flight` : statusWords(statusFactsOf(s), null);
  return `session resumed at turn ${s.turn} (${what})`;
}
