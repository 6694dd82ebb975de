import { keyListAfter } from './key-lists.js';

/**
 * How a journal line holds an event from schema 7 on: an event of a usual layout (its type and payload keys, in
 * order, one of KNOWN_EVENT_SHAPES) whose envelope the line already says is stored as a row, the layout's number
 * and then its values, `[2, "t25", "MAJOR_2.p56", "p56", 0, 25]` for an agent_message. Each event repeated its
 * type and its key names: a fifth of a 200-persona line's bytes, serialised, sealed and written at every turn.
 * Reading builds the object again (same keys, same order, same values). An event of another layout stays an object.
 */

type Raw = Record<string, unknown>;

/**
 * The event layouts a line names by number: the type, then the payload keys in the order the engine writes them.
 * Part of schema 7: append, never change or reorder.
 */
const KNOWN_EVENT_SHAPES: readonly (readonly string[])[] = [
  ['usage', 'persona', 'model', 'prompt_tokens', 'completion_tokens', 'cost', 'total_tokens', 'total_cost'],
  ['usage', 'persona', 'model', 'prompt_tokens', 'completion_tokens', 'cached_tokens', 'cost', 'total_tokens', 'total_cost'],
  ['agent_message', 'turn_id', 'path', 'persona', 'text', 'turn'],
  ['directive', 'turn_id', 'path', 'persona', 'directive', 'source'],
  ['approval', 'turn', 'by', 'of', 'status'],
  ['approval', 'turn', 'by', 'of', 'status', 'reason'],
  ['arbitration', 'from', 'decision'],
  ['transition', 'from', 'to', 'reason', 'kind'],
  ['major_exited', 'major'],
  ['major_entered', 'major'],
  ['state_entered', 'path', 'persona', 'major'],
  ['agent_started', 'turn_id', 'path', 'persona', 'attempt', 'model', 'inbox'],
  ['memory_compressed', 'turns_in', 'tokens_before', 'tokens_after', 'summaries'],
  ['user_input', 'text', 'kind'],
  ['session_started', 'brief', 'mode', 'team', 'model', 'initial'],
  ['awaiting_user', 'reason', 'code'],
  ['agent_aborted', 'turn_id', 'persona', 'reason'],
];

// The layouts of each type, by number.
const SHAPES_OF_TYPE = new Map<string, number[]>();
KNOWN_EVENT_SHAPES.forEach((shape, i) => {
  const list = SHAPES_OF_TYPE.get(shape[0]!) ?? [];
  list.push(i);
  SHAPES_OF_TYPE.set(shape[0]!, list);
});

// A row is built while the event's keys are read: it starts with the first layout of its type, and moves to another
// of the type with the same keys so far when the next key (or the end) is not the layout's. Positions count `type` as 0.

/** The first layout of events of `type`, or -1 when there is none. */
export function firstShapeOf(type: unknown): number {
  return typeof type === 'string' ? (SHAPES_OF_TYPE.get(type)?.[0] ?? -1) : -1;
}

/** Whether layout `k` has `key` at position `at`. */
export function shapeHas(k: number, at: number, key: string): boolean {
  return KNOWN_EVENT_SHAPES[k]![at] === key;
}

/** Whether layout `k` ends after `count` keys. */
export function shapeEndsAt(k: number, count: number): boolean {
  return KNOWN_EVENT_SHAPES[k]!.length === count;
}

/**
 * A layout of the type of layout `k` with its keys before position `at`, then `key` there (or, for null, ending
 * there), or -1 when the type has none.
 */
export function shapeAfter(k: number, at: number, key: string | null): number {
  return keyListAfter(KNOWN_EVENT_SHAPES, SHAPES_OF_TYPE.get(KNOWN_EVENT_SHAPES[k]![0]!)!, k, at, key);
}

/** The object a row begun for an event stands for, with its first `count` keys (its type's and the values read so far). */
export function objectOfRow(row: readonly unknown[], count: number): Record<string, unknown> {
  const shape = KNOWN_EVENT_SHAPES[row[0] as number]!;
  const e: Raw = { type: shape[0] };
  for (let j = 1; j < count; j++) e[shape[j]!] = row[j];
  return e;
}

/**
 * The event a stored row stands for (a new object: type first, then the layout's keys with the row's values), or
 * null when `row` is not a row of a known layout (an edit left it out of shape: it is left as stored).
 */
export function eventOfRow(row: unknown): Raw | null {
  if (!Array.isArray(row)) return null;
  const k = row[0];
  const shape = typeof k === 'number' ? KNOWN_EVENT_SHAPES[k] : undefined;
  if (shape === undefined || shape.length !== row.length) return null;
  return objectOfRow(row, shape.length);
}
