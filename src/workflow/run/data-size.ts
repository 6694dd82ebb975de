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
 * jsonBytes of an evaluation's answer without its own common_data (`rest`), and of that common_data (`held`): the
 * same figures as writing each out, from one writing of the whole answer (native, whatever it holds) and the
 * common_data's size counted once per object. `{"common_data":<held>,<rest's members>}`: rest is what is left
 * without `"common_data":`, the held bytes and the comma that joined them to any other member.
 */
export function answerBytes(answer: Record<string, unknown>): { held: number; rest: number } {
  const total = jsonBytes(answer);
  const data = answer.common_data;
  // Its toJSON read only when it has one of its own (common_data comes in many shapes: a read of it checked each, and the
  // optimised caller was thrown away at each new one, --trace-deopt "wrong map").
  const held =
    data !== null &&
    typeof data === 'object' &&
    Object.getPrototypeOf(data) === Object.prototype &&
    typeof (Object.hasOwn(data, 'toJSON') ? (data as { toJSON?: unknown }).toJSON : (Object.prototype as { toJSON?: unknown }).toJSON) !== 'function'
      ? commonDataBytes(data)
      : jsonBytes(data);
  // Not written (undefined): the answer is its rest.
  if (held === 0) return { held, rest: total };
  const left = total - COMMON_DATA_KEY_BYTES - held;
  return { held, rest: left > 2 ? left - 1 : left };
}

const COMMON_DATA_KEY_BYTES = '"common_data":'.length;

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
