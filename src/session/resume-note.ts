import type { MachineDefinition } from '../engine/definition.js';
import type { SessionState } from '../engine/session.js';

/** The note a reopened session publishes: the turn it is at, and the turn it re-runs (the one in flight when it was let go). */
export function resumeNote(def: MachineDefinition, s: SessionState): string {
  const name = s.inFlight ? (def.agentIndex.get(s.inFlight.persona)?.name ?? s.inFlight.persona) : '';
  const what = s.inFlight && s.status === 'running' ? `re-running ${name}'s turn ${s.inFlight.turnId}, which was in flight` : `status ${s.status}`;
  return `session resumed at turn ${s.turn} (${what})`;
}
