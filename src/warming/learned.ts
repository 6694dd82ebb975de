import type { MachineDefinition } from '../engine/definition.js';
import { TransitionCounts, type TransitionTable } from './transitions.js';

/** How many of the team's (or workflow's) newest stored sessions teach it its transitions. */
export const LEARN_SESSIONS = 20;
/** How long what was listed is used before the store is listed again (a long-running `troupe serve`). */
const FRESH_MS = 10 * 60_000;
// Sessions kept per team (listed from the store, or told by sessions of this process as they end).
const KEEP = 2 * LEARN_SESSIONS;

/** What one process knows of a team's sessions: each session's transitions, by id, newest last. */
type Known = { sessions: Map<string, TransitionCounts>; version: number; loading: Promise<void> | null; at: number };

/** A stored session as learning sees it: whose it is, and the transitions its checkpoint keeps (absent in sessions stored before they were kept). */
export interface LearnedListing {
  team: string;
  workflow?: string | null;
  transitions?: TransitionTable;
}

/**
 * What learning reads of a store (the store is a layer above: a port, as the store gives it): its sessions'
 * listings, newest first. Only listings: each session's counts are folded as it runs and kept in its
 * checkpoint, so learning never reads a session's events.
 */
export interface StoredSessions {
  list(options?: { hosted?: (id: string) => boolean }): Promise<readonly ({ id: string; listing: LearnedListing } | { id: string; error: string })[]>;
}

const byStore = new WeakMap<StoredSessions, Map<string, Known>>();

/** The key a definition's sessions are known by: a team's name, or a workflow's (their tables count different things). */
export function keyOf(def: MachineDefinition): string {
  return `${def.kind}:${def.name}`;
}

/** True when a stored session ran this definition: a team session of the team, or a run of the workflow. */
function ranBy(def: MachineDefinition, listing: LearnedListing): boolean {
  return def.kind === 'workflow' ? listing.workflow === def.name : !listing.workflow && listing.team === def.name;
}

function knownFor(store: StoredSessions, def: MachineDefinition): Known {
  let teams = byStore.get(store);
  if (!teams) {
    teams = new Map();
    byStore.set(store, teams);
  }
  let known = teams.get(keyOf(def));
  if (!known) {
    known = { sessions: new Map(), version: 0, loading: null, at: -Infinity };
    teams.set(keyOf(def), known);
  }
  return known;
}

function keep(known: Known, id: string, counts: TransitionCounts): void {
  known.sessions.delete(id);
  known.sessions.set(id, counts);
  known.version += 1;
  while (known.sessions.size > KEEP) known.sessions.delete(known.sessions.keys().next().value!);
}

/**
 * Lists the store and takes the counts of the definition's newest LEARN_SESSIONS sessions. Sessions stored
 * before counts were kept teach nothing: counting them would mean reading their whole journals (what this
 * replaced), and their counts could not be written back without taking each one's lock.
 */
async function load(store: StoredSessions, def: MachineDefinition, known: Known): Promise<void> {
  // Each session's checkpointed counts are enough to learn from: no journal is folded for them (as for the sessions a
  // server runs), or a busy server's first session of a team folded every open session's last lines to learn.
  const entries = await store.list({ hosted: () => true });
  const mine = entries.flatMap((e) => ('listing' in e && ranBy(def, e.listing) ? [{ id: e.id, table: e.listing.transitions }] : [])).slice(0, LEARN_SESSIONS);
  for (const { id, table } of mine.reverse()) if (table) keep(known, id, TransitionCounts.from(table));
}

/** Who followed whom in the stored sessions of a team or workflow (the newest LEARN_SESSIONS), listed now. */
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
  /** The transitions of the team's other sessions (null until listed; the first call starts listing them in the background). */
  (): TransitionCounts | null;
  /** Adds this session's transitions, for sessions of this process that start later. */
  remember(counts: TransitionCounts): void;
}

/**
 * Seed 004's "learning from conversation patterns": who follows whom in a team (or a workflow), from the
 * counts its stored sessions keep, listed once per store and team per process (again after ten minutes),
 * and from the sessions of this process as they end. A session never learns from itself (its own
 * transitions count apart). `now` is the clock.
 */
export function learnedFrom(store: StoredSessions, def: MachineDefinition, self: string, now: () => number = Date.now): Learned {
  const known = knownFor(store, def);
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
