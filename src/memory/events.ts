import { z } from 'zod';
import { lazySchema } from '../config/lazy-schema.js';

const str = z.string();
const num = z.number();

/** The rolling memory's events: turns compressed into a summary, and a prompt trimmed to its budget. */
export const MEMORY_EVENT_PAYLOADS = lazySchema(
  () =>
    ({
      memory_compressed: z.object({ turns_in: num, tokens_before: num, tokens_after: num, summaries: num }),
      memory_trimmed: z.object({ persona: str, dropped: z.array(str), tokens_before: num, tokens_after: num, budget: num }),
    }) as const,
);

/** Payload of each of these events, keyed by its name. */
export type MemoryEventMap = { [K in keyof typeof MEMORY_EVENT_PAYLOADS]: z.infer<(typeof MEMORY_EVENT_PAYLOADS)[K]> };

declare module '../engine/event-map.js' {
  interface PolicyEventMap extends MemoryEventMap {}
}
