import type { MachineDefinition } from '../engine/definition.js';
import type { Store } from '../store/store.js';
import { countTransitions, TransitionCounts } from './transitions.js';

/** How many of the team's newest stored sessions are read to learn its transitions. */
export const LEARN_SESSIONS = 20;
/** How long learned counts are used before the store is read again (a long-running `troupe serve`). */
const FRESH_MS = 10 * 60_000;

type Entry = { counts: TransitionCounts | null; loading: Promise<void> | null; at: number };
const byStore = new WeakMap<Store, Map<string, Entry>>();

/**
 * Learns who follows whom in a team from its stored sessions (the newest LEARN_SESSIONS of the same team
 * name, other than `exclude`): seed 004's "learning from conversation patterns". Read in the background,
 * once per store and team per process (again after ten minutes); sessions that cannot be read are skipped.
 */
export async function learnTransitions(store: Store, def: MachineDefinition, exclude: string | null): Promise<TransitionCounts> {
  const counts = new TransitionCounts();
  const entries = await store.list();
  const ids = entries.filter((e) => 'listing' in e && e.listing.team === def.name && e.id !== exclude).slice(0, LEARN_SESSIONS).map((e) => e.id);
  for (const id of ids) {
    try {
      countTransitions(def, (await store.read(id)).events, counts);
    } catch {
      // A damaged or locked-out session teaches nothing; the others still do.
    }
  }
  return counts;
}

/**
 * The learned transitions of a team as a getter: null until they are read; the first call (and one after
 * FRESH_MS) starts reading them in the background. `now` is the clock (injected in tests).
 */
export function learnedFrom(store: Store, def: MachineDefinition, exclude: string | null, now: () => number = Date.now): () => TransitionCounts | null {
  let teams = byStore.get(store);
  if (!teams) byStore.set(store, (teams = new Map()));
  const key = def.name;
  return () => {
    let entry = teams.get(key);
    if (!entry) teams.set(key, (entry = { counts: null, loading: null, at: -Infinity }));
    const e = entry;
    if (!e.loading && now() - e.at >= FRESH_MS) {
      e.at = now();
      e.loading = learnTransitions(store, def, exclude)
        .then((counts) => void (e.counts = counts))
        .catch(() => undefined)
        .finally(() => void (e.loading = null));
    }
    return e.counts;
  };
}
