import { z } from 'zod';
import { lazySchema } from '../../config/lazy-schema.js';

const str = z.string();
const num = z.number();

/** The workflow policy's events: a fan-out and its join, a debate's verdicts and its end. */
export const WORKFLOW_EVENT_PAYLOADS = lazySchema(
  () =>
    ({
      /** A parallel state's branches: fanned out, then joined (which succeeded, which failed and why). */
      fanout: z.object({ state: str, branches: z.array(str), join: str }),
      joined: z.object({ state: str, done: z.array(str), failed: z.array(z.object({ branch: str, error: str })), outcome: z.enum(['continue', 'fail']) }),
      /** A reviewer's verdict in a debate round, and how the debate ended. */
      verdict: z.object({ state: str, round: num, reviewer: str, agree: z.boolean(), approve: z.boolean(), feedback: str }),
      debate_ended: z.object({ state: str, rounds: num, consensus: z.boolean(), approve: z.boolean(), synthesised: z.boolean() }),
    }) as const,
);

/** Payload of each of these events, keyed by its name. */
export type WorkflowEventMap = { [K in keyof typeof WORKFLOW_EVENT_PAYLOADS]: z.infer<(typeof WORKFLOW_EVENT_PAYLOADS)[K]> };

declare module '../../engine/event-map.js' {
  interface PolicyEventMap extends WorkflowEventMap {}
}
