import { z } from 'zod';
import { lazySchema } from '../config/lazy-schema.js';

const str = z.string();
const num = z.number();

/** One predicted next persona, as the prediction event carries it (confidence and signals 0..1). */
export const PredictionSchema = z.object({ persona: str, confidence: num, history: num, context: num, dependency: num });

/**
 * State warming's events: the predicted next personas while one answers (a runtime fact, delivered live and
 * not stored: it is recomputed from the session whenever needed), and each cache-warming request with its
 * usage (stored: warming is paid for, and counted apart from the session's own calls).
 */
export const WARMING_EVENT_PAYLOADS = lazySchema(
  () =>
    ({
      prediction: z.object({
        turn_id: str,
        /** The persona answering now. */
        persona: str,
        /** What the context signal read: the message it answers (as its call goes out), or its answer so far (once it has said enough). */
        on: z.enum(['inbox', 'answer']),
        predictions: z.array(PredictionSchema),
      }),
      warming: z.object({
        turn_id: str,
        /** The persona whose prompt prefix was sent. */
        persona: str,
        model: str,
        status: z.enum(['done', 'aborted', 'failed']),
        /** Why it was aborted or failed. */
        reason: str.optional(),
        prompt_tokens: num,
        cached_tokens: num.optional(),
        completion_tokens: num,
        /** Null when the model has no price (or nothing is known: aborted before the server said). */
        cost: num.nullable(),
        /** The session's warming so far: requests, prompt tokens, and cost (null while nothing was priced). */
        total_requests: num,
        total_prompt_tokens: num,
        total_cost: num.nullable(),
      }),
    }) as const,
);

/** Payload of each of these events, keyed by its name. */
export type WarmingEventMap = { [K in keyof typeof WARMING_EVENT_PAYLOADS]: z.infer<(typeof WARMING_EVENT_PAYLOADS)[K]> };

declare module '../engine/event-map.js' {
  interface PolicyEventMap extends WarmingEventMap {}
}
