import { UsageError } from './args.js';

/** A whole-number setting from the environment, at least `min`; undefined when unset; anything else one line naming it. */
function wholeSetting(env: Record<string, string | undefined>, name: string, min: number): number | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new UsageError(`${name} must be a whole number >= ${min}, got "${raw}"`);
  return value;
}

/** TROUPE_SERVE_MAX_CONNECTIONS: the connections `troupe serve` and `troupe worker` hold at once (undefined: their default). */
export const maxConnectionsSetting = (env: Record<string, string | undefined>): number | undefined => wholeSetting(env, 'TROUPE_SERVE_MAX_CONNECTIONS', 2);

/** TROUPE_WORKER_MAX_STREAMS: the streams (invocations in flight) `troupe worker` has open at once (undefined: its default). */
export const maxStreamsSetting = (env: Record<string, string | undefined>): number | undefined => wholeSetting(env, 'TROUPE_WORKER_MAX_STREAMS', 1);
