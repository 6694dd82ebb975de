// What a workflow state may hold: common_data travels into every evaluation and is journaled with each
// result, so its size is capped well below what the sandbox could hand back.

/** Most bytes of common_data (as JSON) a workflow may hold after any evaluation. */
export const MAX_COMMON_DATA_BYTES = 4 * 1024 * 1024;

/** Bytes of a value written as JSON (UTF-8); 0 for what JSON cannot write. */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
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
