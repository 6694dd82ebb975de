import type { MachineDefinition } from '../engine/definition.js';
import type { TroupeEvent } from '../engine/event-map.js';
import { TransitionCounts, transitionTableOf } from './transitions.js';

/**
 * A session's own transitions, folded as it runs and kept in its checkpoint (as usage is), so the
 * team's later sessions learn from the stored counts without reading its events. A team counts who
 * followed whom (`transition` events between personas); a workflow counts which agent state's call
 * followed which (`agent_started` of its main calls, by state key: `code -> review`), since one
 * agent may act in several states and the transition table decides between them.
 */
export class TransitionFold {
  readonly counts: TransitionCounts;
  // A workflow's last main call's state key (the next call's predecessor).
  private lastPath: string | null = null;

  /** Starts from a checkpoint's stored table (anything else: from nothing). */
  constructor(
    private readonly def: MachineDefinition,
    saved: unknown = null,
  ) {
    this.counts = TransitionCounts.from(transitionTableOf(saved) ?? {});
  }

  /** Counts one event of the session (events after the checkpoint, then every new one). */
  add(e: TroupeEvent): void {
    if (this.def.kind !== 'workflow') {
      this.counts.addEvent(this.def, e);
      return;
    }
    // A branch runs beside the main line, and a repair round or retry of the same call is not a new step.
    if (e.type !== 'agent_started' || e.branch !== undefined || e.attempt !== 1) return;
    if (this.lastPath !== null) this.counts.add(this.lastPath, e.path);
    this.lastPath = e.path;
  }

  /** The counts as the checkpoint keeps them. */
  toJSON(): Record<string, Record<string, number>> {
    return this.counts.toJSON();
  }
}
