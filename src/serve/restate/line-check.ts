import type { LineSession } from '../../commands/execute.js';
import type { MemorySource } from '../../commands/memory-source.js';
import type { Team } from '../../config/team-schema.js';
import type { MachineDefinition } from '../../engine/definition.js';
import type { TroupeEvent } from '../../engine/event-map.js';
import type { EngineInput } from '../../engine/input-events.js';
import type { SessionState } from '../../engine/session.js';
import { step } from '../../engine/step.js';
import { Memory } from '../../memory/memory.js';
import { namesFor } from '../../memory/names.js';
import { CommandApprovals } from '../../session/approvals.js';
import type { PriceTable } from '../../usage/price-table.js';
import { sessionUsage, type SessionUsage } from '../../usage/session-usage.js';
import { restoreUsage, UsageMeter } from '../../usage/usage-meter.js';

/**
 * A line checked against the stored session without changing it: the inputs it would send (captured, not
 * applied), and whether applying them would cut off work in progress (a dry `step()` on the stored state
 * yields an abort, a detach or an end), so the invocation running the session must be cancelled first.
 */
export class LineCheck implements LineSession {
  readonly inputs: EngineInput[] = [];
  readonly store = null;
  readonly approvals = new CommandApprovals(() => undefined);

  constructor(
    readonly def: MachineDefinition,
    private readonly state: SessionState,
    private readonly model: string,
    private readonly log: () => Promise<TroupeEvent[]>,
  ) {}

  getSnapshot(): SessionState {
    return this.state;
  }

  start(brief: string): void {
    this.inputs.push({ type: 'start', brief, model: this.model });
  }

  send(input: EngineInput): void {
    this.inputs.push(input);
  }

  /** Inspections that read events read the whole log (`history`); none reads this window. */
  recent(): readonly TroupeEvent[] {
    return [];
  }

  history(): Promise<TroupeEvent[]> {
    return this.log();
  }

  /** Whether the captured inputs, applied to the stored state, would abort a call, detach or end the session. */
  cutsOff(): boolean {
    let s = this.state;
    for (const input of this.inputs) {
      const { session, effects } = step(this.def, s, input);
      if (effects.some((fx) => fx.type === 'abort_call' || fx.type === 'detach' || fx.type === 'end')) return true;
      s = session;
    }
    return false;
  }
}

/** `!cost`'s usage: the stored meter totals, restored into a meter with the worker's prices (a damaged state counts nothing). */
export function lineUsage(stored: unknown, prices: PriceTable, free: boolean): SessionUsage {
  const meter = new UsageMeter(prices);
  if (stored) restoreUsage(meter, stored);
  return sessionUsage(meter, { free });
}

/** `!memory`'s view of the stored rolling memory (undefined when the session runs without it). */
export function lineMemory(stored: unknown, team: Pick<Team, 'memory'>, def: MachineDefinition): MemorySource | undefined {
  if (stored === null || stored === undefined) return undefined;
  return () => Memory.fromJSON(stored, { config: team.memory, nameOf: namesFor(def) }).snapshot();
}
