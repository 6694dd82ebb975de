// What a workflow state may hold: common_data travels into every evaluation and is journaled with each
// result, so its size is capped well below what the sandbox could hand back.

/** Most bytes of common_data (as JSON) a workflow may hold after any evaluation. */
export const MAX_COMMON_DATA_BYTES = 4 * 1024 * 1024;

/** Bytes of a value written as JSON (UTF-8); 0 for what JSON cannot write. */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
}

// common_data objects are never changed once made (the engine replaces them), and an answer whose code left
// common_data as it was carries the engine's own object (the host tier gives it back): its size, counted once,
// stays true for every answer and chained part that carries it.
const commonDataSizes = new WeakMap<object, number>();

/** jsonBytes of a common_data object (counted once per object). */
export function commonDataBytes(data: object): number {
  let bytes = commonDataSizes.get(data);
  if (bytes === undefined) {
    bytes = jsonBytes(data);
    commonDataSizes.set(data, bytes);
  }
  return bytes;
}

/**
 * jsonBytes of an evaluation's answer without its own common_data (`rest`), and of that common_data (`held`): the same
 * figures as writing them out, with each common_data (the answer's, its chained parts') counted once per object. An
 * object's JSON is its members' JSON joined, so the sum of their bytes is exact.
 */
export function answerBytes(answer: Record<string, unknown>): { held: number; rest: number } {
  return { held: memberBytes('common_data', answer.common_data) ?? 0, rest: objectBytes(answer, 'common_data') };
}

// Bytes of a plain object's JSON, without the member `without`.
function objectBytes(o: Record<string, unknown>, without: string | null): number {
  let bytes = 2;
  let members = 0;
  for (const key of Object.keys(o)) {
    if (key === without) continue;
    const b = memberBytes(key, o[key]);
    if (b === undefined) continue;
    bytes += Buffer.byteLength(JSON.stringify(key), 'utf8') + 1 + b;
    members += 1;
  }
  return bytes + Math.max(0, members - 1);
}

// Bytes of one member's value as JSON (undefined: not written): a common_data object by its memo, a chained part member by member.
function memberBytes(key: string, v: unknown): number | undefined {
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype && typeof (v as { toJSON?: unknown }).toJSON !== 'function') {
    if (key === 'common_data') return commonDataBytes(v);
    if (key === 'next') return objectBytes(v as Record<string, unknown>, null);
  }
  const text = JSON.stringify(v);
  return text === undefined ? undefined : Buffer.byteLength(text, 'utf8');
}

/** Sizes as people read them (KiB, MiB). */
export function sizeOf(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;
}

/** Why common_data of that size may not be kept (one line with the fix), or null when it may. */
export function commonDataProblem(bytes: number, limit = MAX_COMMON_DATA_BYTES): string | null {
  if (bytes <= limit) return null;
  return `common_data would hold ${sizeOf(bytes)} (at most ${sizeOf(limit)}): keep large data out of common_data (trim it, or keep it in the agents' workspace files)`;
}
