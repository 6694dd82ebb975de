import { z } from 'zod';
import type { MachineDefinition } from '../engine/definition.js';
import type { TroupeEvent } from '../engine/event-map.js';
import { lazySchema } from '../config/lazy-schema.js';

/** How often each persona followed each other persona: `counts[from][to]`, as plain data. */
export type TransitionTable = Record<string, Record<string, number>>;

const TransitionTableSchema = lazySchema(() => z.record(z.string(), z.record(z.string(), z.number().int().min(0))));

/** A stored transition table, or null when there is none or it is not one (a damaged table teaches nothing). */
export function transitionTableOf(stored: unknown): TransitionTable | null {
  // A new session has none: a refused parse builds a ZodError (an Error, its stack captured), 40-60 µs a session.
  if (stored === null || stored === undefined) return null;
  const parsed = TransitionTableSchema.safeParse(stored);
  return parsed.success ? parsed.data : null;
}

/** The persona id of a state path (`MAJOR.persona_id`), or null for the user's state and unknown paths. */
function personaOf(def: MachineDefinition, path: string): string | null {
  const id = path.slice(path.lastIndexOf('.') + 1);
  const agent = def.agentIndex.get(id);
  return agent && agent.path === path ? id : null;
}

/**
 * Counts of who came after whom: the "usage patterns" of seed 004's state warming, learned from a
 * session's `transition` events (persona to persona only; moves to and from the user are not a
 * persona's choice of successor).
 */
export class TransitionCounts {
  private readonly table: TransitionTable = {};
  private readonly totals = new Map<string, number>();

  /** Counts from plain data (learned elsewhere). */
  static from(table: TransitionTable): TransitionCounts {
    const counts = new TransitionCounts();
    for (const [from, row] of Object.entries(table)) for (const [to, n] of Object.entries(row)) counts.add(from, to, n);
    return counts;
  }

  /** Counts `from -> to` once more (or `n` times). */
  add(from: string, to: string, n = 1): void {
    if (!(n > 0)) return;
    const row = this.table[from] ?? {};
    this.table[from] = row;
    row[to] = (row[to] ?? 0) + n;
    this.totals.set(from, (this.totals.get(from) ?? 0) + n);
  }

  /** Counts a `transition` event when it moves between two personas of the definition; true when counted. */
  addEvent(def: MachineDefinition, e: TroupeEvent): boolean {
    if (e.type !== 'transition') return false;
    const from = personaOf(def, e.from);
    const to = personaOf(def, e.to);
    if (!from || !to || from === to) return false;
    this.add(from, to);
    return true;
  }

  /** How often `to` followed `from`. */
  count(from: string, to: string): number {
    return this.table[from]?.[to] ?? 0;
  }

  /** How often anyone followed `from`. */
  total(from: string): number {
    return this.totals.get(from) ?? 0;
  }

  /** The personas that ever followed `from`. */
  followers(from: string): string[] {
    return Object.keys(this.table[from] ?? {});
  }

  /** The counts as plain data. */
  toJSON(): TransitionTable {
    return structuredClone(this.table);
  }
}

/** The transitions of a stored session's events. */
export function countTransitions(def: MachineDefinition, events: readonly TroupeEvent[], into = new TransitionCounts()): TransitionCounts {
  for (const e of events) into.addEvent(def, e);
  return into;
}
