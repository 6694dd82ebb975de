import { z } from 'zod';
import { lazySchema } from '../config/lazy-schema.js';
import { CORE_EVENT_PAYLOADS, type EngineEvent, type TroupeEventName } from '../engine/event-map.js';
import { CORE_INPUT_SCHEMAS, type EngineInput } from '../engine/input-events.js';
import { CoreStateSchema, type SessionState } from '../engine/session.js';
import { MEMORY_EVENT_PAYLOADS } from '../memory/events.js';
import { TEAM_EVENT_PAYLOADS } from '../team/events.js';
import { TEAM_INPUT_SCHEMAS } from '../team/inputs.js';
import { TEAM_STATE_SLOTS } from '../team/state.js';
import { TOOL_EVENT_PAYLOADS } from '../tools/events.js';
import { WARMING_EVENT_PAYLOADS } from '../warming/events.js';
import { WORKFLOW_EVENT_PAYLOADS } from '../workflow/run/events.js';
import { WORKFLOW_INPUT_SCHEMAS } from '../workflow/run/inputs.js';
import { WORKFLOW_STATE_SLOTS } from '../workflow/run/state.js';
// Types the policies add to the core's vocabulary (their `declare module` blocks).
import type {} from '../team/inbox.js';
import type {} from '../team/team-settings.js';
import type {} from '../workflow/run/inbox.js';
import type {} from '../workflow/run/plan.js';

/**
 * The registry of session kinds' vocabulary: the core's schemas with what each policy and module adds.
 * The engine knows only its own; everything that stores, checks or lists a session's data (the store,
 * the reports, the API) reads the whole vocabulary here. A policy adds an input, an event or a state
 * field in its own module and lists it here once.
 */

/** The engine state as stored: the core's fields, then each policy's own (teams `routing`, workflows `workflow`). */
// The assembled schemas are z.lazy: built on their first parse, not when the store is imported (a cold
// `troupe run` creates its session and sends its first request without parsing any of them).
export const SessionStateSchema = z.lazy(() => CoreStateSchema.extend({ ...TEAM_STATE_SLOTS, ...WORKFLOW_STATE_SLOTS })) as unknown as z.ZodType<SessionState>;

/** Everything the engine consumes, as the journal stores it: the core's inputs and every policy's. */
export const EngineInputSchema = z.lazy(() => z.discriminatedUnion('type', [...CORE_INPUT_SCHEMAS, ...TEAM_INPUT_SCHEMAS, ...WORKFLOW_INPUT_SCHEMAS])) as unknown as z.ZodType<EngineInput>;

/** The payload schema of every troupe event, keyed by its snake_case name (the one source of their shapes). */
// Both built on first use, like the maps they join (a cold `troupe run` publishes events without parsing any).
export const EVENT_PAYLOADS = lazySchema(
  () => ({ ...CORE_EVENT_PAYLOADS, ...TEAM_EVENT_PAYLOADS, ...WORKFLOW_EVENT_PAYLOADS, ...TOOL_EVENT_PAYLOADS, ...MEMORY_EVENT_PAYLOADS, ...WARMING_EVENT_PAYLOADS }) as const,
);

/** The names of every event. */
export const EVENT_NAMES = lazySchema(() => Object.keys(EVENT_PAYLOADS) as TroupeEventName[], []);

/** zod schema of an engine event (any name). */
export const EngineEventSchema = z.lazy(() =>
  z.discriminatedUnion('type', EVENT_NAMES.map((name) => EVENT_PAYLOADS[name].extend({ type: z.literal(name) })) as unknown as [z.ZodObject, ...z.ZodObject[]]),
) as unknown as z.ZodType<EngineEvent>;
