/**
 * Parse options for a value checked once per process (a config file, a schema's defaults): zod 4 compiles a
 * generated fast path (`new Function`) for each object schema on its first parse, which pays off only for
 * schemas parsed again and again; for one-off parses on the way to the first request it costs a cold start
 * its compile time (about 5% of `troupe run`'s CPU to the first word, measured).
 */
export const PARSE_ONCE = { jitless: true } as const;
