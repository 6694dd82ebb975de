import { keyListAfter } from './key-lists.js';
/**
 * How a journal line holds an arbitration's decision from schema 5 on: its proposals as rows, their keys
 * written once per line, and the winner as its index among the proposals. An arbitration event was half of
 * a turn's journal bytes: each proposal repeated its eleven key names and its criteria's three, and the
 * winner repeated a proposal whole. Reading puts both back (same values, same key order), and the winner is
 * again the proposal it was.
 */

type Raw = Record<string, unknown>;

const CRITERIA = ['urgency', 'dependency', 'user_intent'] as const;

// The key lists arbitration writes (an agent's proposal, a queued one, a rule's, a dropped queued one): a line
// names one of these by its number. Part of schema 5: append, never change or reorder.
const KNOWN_SHAPES: readonly (readonly string[])[] = [
  ['target', 'source', 'criteria', 'reason', 'proposer', 'targetId', 'score', 'status'],
  ['target', 'source', 'criteria', 'reason', 'proposer', 'targetId', 'score', 'status', 'expires'],
  ['target', 'source', 'criteria', 'reason', 'proposer', 'detour', 'ruleId', 'targetId', 'score', 'status'],
  ['target', 'source', 'criteria', 'reason', 'proposer', 'targetId', 'score', 'status', 'dropReason'],
  ['target', 'source', 'criteria', 'reason', 'proposer', 'targetId', 'score', 'status', 'expires', 'dropReason'],
];

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The key lists the rows of one line use, each written once: a row starts with its list's index in the
 * line's `shapes`, whose entries are the key list or, for a list arbitration usually writes, its number.
 */
export class RowShapes {
  readonly list: (string[] | number)[] = [];
  // The key list of each entry of `list` (a line has a few: compared key by key, no name built per row).
  private readonly keys: (readonly string[])[] = [];

  /** The index of the known key list numbered `known`, added when new. */
  ofKnown(known: number): number {
    for (let i = 0; i < this.list.length; i++) if (this.list[i] === known) return i;
    this.list.push(known);
    this.keys.push(KNOWN_SHAPES[known]!);
    return this.list.length - 1;
  }

  /** The index of this key list, added when new. */
  of(keys: string[]): number {
    for (let i = 0; i < this.keys.length; i++) if (sameKeys(this.keys[i]!, keys)) return i;
    let known = -1;
    for (let k = 0; k < KNOWN_SHAPES.length && known < 0; k++) if (sameKeys(KNOWN_SHAPES[k]!, keys)) known = k;
    this.list.push(known >= 0 ? known : keys);
    this.keys.push(keys);
    return this.list.length - 1;
  }
}

function isCriteria(v: unknown): v is Record<(typeof CRITERIA)[number], number> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  // Its keys in order, read without a list of them.
  let count = 0;
  for (const key in v) if (count > 2 || key !== CRITERIA[count++]) return false;
  const c = v as Raw;
  return count === 3 && typeof c.urgency === 'number' && typeof c.dependency === 'number' && typeof c.user_intent === 'number';
}

// Every known key list is a candidate for any other (see keyListAfter).
const ALL_SHAPES = KNOWN_SHAPES.map((_, i) => i);

/** The known key list whose keys before position `at` are those of list `k` and whose key there is `key` (for null, which ends there), or -1. */
function knownAfter(k: number, at: number, key: string | null): number {
  return keyListAfter(KNOWN_SHAPES, ALL_SHAPES, k, at, key);
}

// The values of the proposal row being built (see journal-codec.ts rowValues): copied out at its length once complete.
// Written in order from index 0 (its key list's index comes first), never past its end: a hole would make every row
// copied from it holey, which JSON.stringify writes slower.
const rowValues: unknown[] = [];

// A proposal becomes a row when every value is a string, number, boolean or null, except criteria of the usual shape
// (a row's only array); anything else (and a key a plain assignment could not restore) stays an object. Its keys are
// matched against the known lists as they are read: a key list is built only for a list arbitration does not write.
function rowOf(p: unknown, shapes: RowShapes): unknown[] | null {
  if (p === null || typeof p !== 'object' || Array.isArray(p)) return null;
  let known = 0;
  let count = 0;
  rowValues[0] = 0;
  for (const key in p) {
    const v = (p as Raw)[key];
    if (key === '__proto__') return null;
    if (v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) rowValues[count + 1] = v;
    else if (key === 'criteria' && isCriteria(v)) rowValues[count + 1] = [v.urgency, v.dependency, v.user_intent];
    else return null;
    if (known >= 0 && KNOWN_SHAPES[known]![count] !== key) known = knownAfter(known, count, key);
    count += 1;
  }
  if (known >= 0 && KNOWN_SHAPES[known]!.length !== count) known = knownAfter(known, count, null);
  rowValues[0] = known >= 0 ? shapes.ofKnown(known) : shapes.of(Object.keys(p));
  return rowValues.slice(0, count + 1);
}

/**
 * The decision as a line stores it (a copy, keys in order), or null when nothing in it is packed: proposals
 * that fit become rows, and a winner that is one of the proposals becomes its index.
 */
export function packDecision(decision: unknown, shapes: RowShapes): Raw | null {
  if (decision === null || typeof decision !== 'object' || Array.isArray(decision)) return null;
  const d = decision as Raw;
  const proposals = d.proposals;
  if (!Array.isArray(proposals)) return null;
  const packed: Raw = {};
  for (const key in d) packed[key] = d[key];
  const rows: unknown[] = [];
  for (let i = 0; i < proposals.length; i++) rows.push(rowOf(proposals[i], shapes) ?? proposals[i]);
  packed.proposals = rows;
  if (d.winner !== null && typeof d.winner === 'object') {
    const k = proposals.indexOf(d.winner);
    if (k >= 0) packed.winner = k;
  }
  return packed;
}

function objectOf(row: unknown[], shape: unknown): Raw | null {
  const keys = typeof shape === 'number' ? KNOWN_SHAPES[shape] : shape;
  if (!Array.isArray(keys) || keys.length !== row.length - 1) return null;
  const p: Raw = {};
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k];
    if (typeof key !== 'string' || key === '__proto__') return null;
    const v = row[k + 1];
    p[key] = Array.isArray(v) ? { urgency: v[0], dependency: v[1], user_intent: v[2] } : v;
  }
  return p;
}

/**
 * Restores a packed decision in place: rows become proposals again and an index winner the proposal it
 * names. What an edit left out of shape (no proposals, a row without its shape, a winner out of range) is
 * left as stored: readers check an event's fields and skip a malformed one.
 */
export function unpackDecision(decision: unknown, shapes: unknown): void {
  if (decision === null || typeof decision !== 'object' || !Array.isArray((decision as Raw).proposals)) return;
  const d = decision as Raw;
  const proposals = d.proposals as unknown[];
  for (let i = 0; i < proposals.length; i++) {
    const row = proposals[i];
    if (Array.isArray(row) && typeof row[0] === 'number' && Array.isArray(shapes)) proposals[i] = objectOf(row, shapes[row[0]]) ?? row;
  }
  if (typeof d.winner === 'number' && proposals[d.winner] !== undefined) d.winner = proposals[d.winner];
}
