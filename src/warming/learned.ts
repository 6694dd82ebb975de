import type { MachineDefinition } from '../engine/definition.js';
import type { TroupeEvent } from '../engine/event-map.js';
import { countTransitions, TransitionCounts } from './transitions.js';

/** How many of the team's newest stored sessions are read to learn its transitions. */
export const LEARN_SESSIONS = 20;
/** How long what was read is used before the store is listed again (a long-running `troupe serve`). */
const FRESH_MS = 10 * 60_000;
// Sessions kept per team (read from the store, or told by sessions of this process as they end).
const KEEP = 2 * LEARN_SESSIONS;

/** What one process knows of a team's sessions: each session's transitions, by id, newest last. */
type Known = { sessions: Map<string, TransitionCounts>; version: number; loading: Promise<void> | null; at: number };
/** What learning reads of a store (the store is a layer above: a port, as the store gives it): its sessions, newest first, and one's events. */
export interface StoredSessions {
  list(): Promise<readonly ({ id: string; listing: { team: string } } | { id: string; error: string })[]>;
  read(id: string): Promise<{ events: readonly TroupeEvent[] }>;
}

const byStore = new WeakMap<StoredSessions, Map<string, Known>>();

function knownFor(store: StoredSessions, team: string): Known {
  let teams = byStore.get(store);
  if (!teams) {
    teams = new Map();
    byStore.set(store, teams);
  }
  let known = teams.get(team);
  if (!known) {
    known = { sessions: new Map(), version: 0, loading: null, at: -Infinity };
    teams.set(team, known);
  }
  return known;
}

function keep(known: Known, id: string, counts: TransitionCounts): void {
  known.sessions.delete(id);
  known.sessions.set(id, counts);
  known.version += 1;
  while (known.sessions.size > KEEP) known.sessions.delete(known.sessions.keys().next().value!);
}

/** Reads the newest LEARN_SESSIONS stored sessions of a team (sessions that cannot be read teach nothing). */
async function load(store: StoredSessions, def: MachineDefinition, known: Known): Promise<void> {
  const entries = await store.list();
  const ids = entries
    .filter((e) => 'listing' in e && e.listing.team === def.name)
    .slice(0, LEARN_SESSIONS)
    .map((e) => e.id)
    .reverse();
  for (const id of ids) {
    if (known.sessions.has(id)) continue;
    try {
      keep(known, id, countTransitions(def, (await store.read(id)).events));
    } catch {
      // A damaged or unreadable session teaches nothing; the others still do.
    }
  }
}

/** Who followed whom in the stored sessions of a team (the newest LEARN_SESSIONS), read now. */
export async function learnTransitions(store: StoredSessions, def: MachineDefinition, exclude: string | null): Promise<TransitionCounts> {
  const known: Known = { sessions: new Map(), version: 0, loading: null, at: 0 };
  await load(store, def, known);
  return merged(known, exclude);
}

function merged(known: Known, exclude: string | null): TransitionCounts {
  const out = new TransitionCounts();
  for (const [id, counts] of known.sessions) if (id !== exclude) for (const [from, row] of Object.entries(counts.toJSON())) for (const [to, n] of Object.entries(row)) out.add(from, to, n);
  return out;
}

/** A session's view of what its team did before: learned transitions, and a way to add its own when it ends. */
export interface Learned {
  /** The transitions of the team's other sessions (null until read; the first call starts reading them in the background). */
  (): TransitionCounts | null;
  /** Adds this session's transitions, for sessions of this process that start later. */
  remember(counts: TransitionCounts): void;
}

/**
 * Seed 004's "learning from conversation patterns": who follows whom in a team, from its stored sessions,
 * read once per store and team per process (again after ten minutes), and from the sessions of this process
 * as they end. A session never learns from itself (its own transitions count apart). `now` is the clock.
 */
export function learnedFrom(store: StoredSessions, def: MachineDefinition, self: string, now: () => number = Date.now): Learned {
  const known = knownFor(store, def.name);
  let view: { version: number; counts: TransitionCounts } | null = null;
  const learned = (() => {
    if (!known.loading && now() - known.at >= FRESH_MS) {
      known.at = now();
      known.loading = load(store, def, known)
        .catch(() => undefined)
        .finally(() => {
          known.loading = null;
        });
    }
    if (known.loading && known.version === 0) return null;
    // Merged once per change in what is known (a prediction per turn reads it).
    if (view?.version !== known.version) view = { version: known.version, counts: merged(known, self) };
    return view.counts;
  }) as Learned;
  learned.remember = (counts) => keep(known, self, TransitionCounts.from(counts.toJSON()));
  return learned;
}
