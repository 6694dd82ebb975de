import type { z } from 'zod';
import { PARSE_ONCE } from './parse-once.js';

/** What a config file's schema gave: the whole value (complete), or the top-level fields valid on their own. */
export interface Salvaged<T> {
  value: Partial<T>;
  complete: boolean;
}

/** An object schema whose fields can be parsed one by one. */
export interface FieldSchema<T> {
  shape: Record<string, z.ZodType>;
  safeParse(value: unknown, params?: typeof PARSE_ONCE): z.ZodSafeParseResult<T>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A copy of `value` without the keys zod reported as unrecognised (its `unrecognized_keys` issues name them and where). */
function withoutUnknownKeys(value: unknown, error: z.ZodError): unknown {
  const copy = structuredClone(value);
  for (const issue of error.issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    let node: unknown = copy;
    for (const key of issue.path) node = isRecord(node) || Array.isArray(node) ? (node as Record<PropertyKey, unknown>)[key as never] : undefined;
    if (isRecord(node)) for (const key of issue.keys) delete node[key];
  }
  return copy;
}

/**
 * Parses a config file's data against its schema, and when the schema refuses it keeps what can still be
 * checked: unknown keys are dropped (a misspelt key must not hide the file's other problems), then each
 * top-level field that is valid on its own is kept. The caller reports the schema's issues; cross-checks
 * run on what this returns, so one run of `troupe validate` names every problem of a file. Null when the
 * data is not an object at all.
 */
export function salvage<T>(schema: FieldSchema<T>, raw: unknown): { salvaged: Salvaged<T> | null; error: z.ZodError | null } {
  const parsed = schema.safeParse(raw, PARSE_ONCE);
  if (parsed.success) return { salvaged: { value: parsed.data as Partial<T>, complete: true }, error: null };
  if (!isRecord(raw)) return { salvaged: null, error: parsed.error };
  // Unknown keys can nest (a typo inside `arbiter`): dropping them may reveal the next level's, a few rounds at most.
  let data: unknown = raw;
  let error = parsed.error;
  for (let round = 0; round < 8 && error.issues.some((i) => i.code === 'unrecognized_keys'); round++) {
    data = withoutUnknownKeys(data, error);
    const again = schema.safeParse(data, PARSE_ONCE);
    if (again.success) return { salvaged: { value: again.data as Partial<T>, complete: false }, error: parsed.error };
    error = again.error;
  }
  const value: Record<string, unknown> = {};
  const fields = data as Record<string, unknown>;
  for (const [key, field] of Object.entries(schema.shape)) {
    const one = field.safeParse(fields[key], PARSE_ONCE);
    if (one.success && one.data !== undefined) value[key] = one.data;
  }
  return { salvaged: { value: value as Partial<T>, complete: false }, error: parsed.error };
}
