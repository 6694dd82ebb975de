import { z } from 'zod';
import { DecisionSchema } from '../arbiter/proposal.js';
import { DirectiveSchema } from '../directive/schema.js';
import { ModeSchema } from '../engine/session.js';
import { lazySchema } from '../config/lazy-schema.js';

const str = z.string();
const num = z.number();

/** The team policy's events: a persona's directive (or why it was invalid), the arbiter's decision, approvals, a mode switch. */
export const TEAM_EVENT_PAYLOADS = lazySchema(
  () =>
    ({
      directive: z.object({ turn_id: str, path: str, persona: str, directive: DirectiveSchema, source: z.enum(['tool', 'text']) }),
      directive_invalid: z.object({ turn_id: str, persona: str, error: str, attempt: num, repairing: z.boolean() }),
      arbitration: z.object({ from: str, decision: DecisionSchema }),
      approval: z.object({ turn: num.optional(), by: str, of: str, status: z.enum(['APPROVED', 'REQUEST_REWORK']), reason: str.optional() }),
      mode_changed: z.object({ mode: ModeSchema }),
    }) as const,
);

/** Payload of each of these events, keyed by its name. */
export type TeamEventMap = { [K in keyof typeof TEAM_EVENT_PAYLOADS]: z.infer<(typeof TEAM_EVENT_PAYLOADS)[K]> };

declare module '../engine/event-map.js' {
  interface PolicyEventMap extends TeamEventMap {}
}
