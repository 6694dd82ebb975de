import type { WireList } from './wire-contexts.js';

/**
 * What the guest holds of each context's messages, by context name, as the lists it was sent (one guest
 * context's: a session's). The guest keeps its own copy of these between jobs, which code never gets: what code
 * reads is copied afresh from it for each part (see the guest's contexts module).
 */
export type HeldLists = ReadonlyMap<string, WireList>;

// Where message i's JSON starts in a list (past the '[' or the ',' before it).
const startOf = (list: WireList, i: number): number => (i === 0 ? 1 : list.ends[i - 1]! + 1);

// Whether messages [from, from + count) of `a` are, as text, messages [at, at + count) of `b`.
function sameRun(a: WireList, from: number, b: WireList, at: number, count: number): boolean {
  if (count === 0) return true;
  const aStart = startOf(a, from);
  const bStart = startOf(b, at);
  const length = a.ends[from + count - 1]! - aStart;
  if (length !== b.ends[at + count - 1]! - bStart) return false;
  return b.json.startsWith(a.json.slice(aStart, aStart + length), bStart);
}

/**
 * How the guest turns the list it holds into `now`, as JSON: `[keep, upTo, [added...]]` (drop the held
 * messages from index `keep` up to `upTo`, then append those added: the engine's lists grow at the end and,
 * past max_length, lose messages after the system ones at the front), or the whole list (held: none). Null:
 * the guest holds `now` already. Messages are compared by their JSON text, so the answer is exact whatever
 * the lists' history.
 */
export function listDelta(held: WireList | undefined, now: WireList): string | null {
  if (held === undefined) return now.json;
  if (held.json === now.json) return null;
  const n = held.ends.length;
  const m = now.ends.length;
  // The messages both start with: all of the held ones (an append), or the longest run found by halving.
  let keep = 0;
  if (n <= m && sameRun(held, 0, now, 0, n)) keep = n;
  else {
    let high = Math.min(n, m);
    while (keep < high) {
      const mid = (keep + high + 1) >> 1;
      if (sameRun(held, 0, now, 0, mid)) keep = mid;
      else high = mid - 1;
    }
  }
  // The longest run of held messages after those that the list goes on with (none: every other held one goes).
  let upTo = n;
  for (let from = keep + 1; from < n; from++) {
    const count = n - from;
    if (keep + count <= m && sameRun(held, from, now, keep, count)) {
      upTo = from;
      break;
    }
  }
  const addedFrom = keep + (n - upTo);
  const added = addedFrom === m ? '[]' : `[${now.json.slice(startOf(now, addedFrom), now.ends[m - 1])}]`;
  return `[${keep},${upTo},${added}]`;
}

/**
 * What to send the guest so that it holds `lists` (a JSON object by context name: each a listDelta; '{}' when
 * it holds them all already), and what it holds once it took them. Contexts it holds that the job does not
 * name stay as they are.
 */
export function messagesDelta(held: HeldLists | null, lists: Readonly<Record<string, WireList>>): { json: string; held: HeldLists } {
  let json = '';
  let next: Map<string, WireList> | null = null;
  for (const name in lists) {
    const now = lists[name]!;
    const delta = listDelta(held?.get(name), now);
    if (delta === null) continue;
    json += `,${JSON.stringify(name)}:${delta}`;
    next ??= new Map(held ?? []);
    next.set(name, now);
  }
  return { json: json === '' ? '{}' : `{${json.slice(1)}}`, held: next ?? held ?? new Map() };
}
