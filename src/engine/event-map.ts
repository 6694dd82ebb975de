import { z } from 'zod';
import { AwaitCodeSchema, TransitionKindSchema } from './moves.js';
import { ModeSchema } from './session.js';
import { lazySchema } from '../config/lazy-schema.js';

const str = z.string();
const num = z.number();

/**
 * What the user's text is to the session: the brief that starts it, a reply to a pause, the answer to an
 * agent's question, or an interjection while agents work. Absent in events stored before it was recorded.
 */
export const UserInputKindSchema = z.enum(['brief', 'reply', 'answer', 'interjection']);
/** What the user's text is to the session. */
export type UserInputKind = z.infer<typeof UserInputKindSchema>;

/**
 * The payload schema of each event the core publishes, keyed by its snake_case name: a session's
 * lifecycle, states entered, agent turns, user input, usage and notes. Policies and modules add their own
 * events (`PolicyEventMap`); the registry in src/kinds/ holds every event's schema.
 */
export const CORE_EVENT_PAYLOADS = lazySchema(
  () =>
    ({
      session_started: z.object({ brief: str, mode: ModeSchema, team: str, model: str, initial: str }),
      state_entered: z.object({ path: str, persona: str, major: str }),
      major_entered: z.object({ major: str }),
      major_exited: z.object({ major: str }),
      agent_started: z.object({ turn_id: str, path: str, persona: str, attempt: num, model: str, inbox: str, branch: str.optional() }),
      agent_delta: z.object({ turn_id: str, persona: str, text: str.optional(), tool_arguments: str.optional(), branch: str.optional() }),
      agent_message: z.object({ turn_id: str, path: str, persona: str, text: str, turn: num, branch: str.optional() }),
      agent_aborted: z.object({ turn_id: str, persona: str, reason: str, branch: str.optional() }),
      transition: z.object({ from: str, to: str, reason: str, kind: TransitionKindSchema }),
      awaiting_user: z.object({ reason: str, code: AwaitCodeSchema, pending: z.object({ from: str, to: str, reason: str }).optional() }),
      user_input: z.object({ text: str, kind: UserInputKindSchema.optional() }),
      command: z.object({ name: str, args: z.array(str) }),
      usage: z.object({
        persona: str.nullable(),
        model: str,
        prompt_tokens: num,
        completion_tokens: num,
        /** Prompt tokens the provider served from its prompt cache (absent when it does not say). */
        cached_tokens: num.optional(),
        cost: num.nullable(),
        total_tokens: num,
        total_cost: num.nullable(),
      }),
      retry: z.object({ turn_id: str.optional(), persona: str.nullable(), attempt: num, wait_ms: num, reason: str }),
      note: z.object({ text: str }),
      error: z.object({ message: str, where: str }),
      session_detached: z.object({ reason: str, detail: str.optional() }),
      session_ended: z.object({ reason: str, detail: str.optional(), output: z.unknown().optional() }),
    }) as const,
);

/** Payload of each core event, keyed by its name. */
export type CoreEventMap = { [K in keyof typeof CORE_EVENT_PAYLOADS]: z.infer<(typeof CORE_EVENT_PAYLOADS)[K]> };

/**
 * The events each policy or module adds, by name: a module declares its own payload schemas and adds their
 * types with `declare module '…/engine/event-map.js' { interface PolicyEventMap extends TheirMap {} }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: an interface, so policy modules can add to it (declaration merging); a type alias cannot be
export interface PolicyEventMap {}

/** Payload of every troupe event, keyed by its snake_case name. */
export type TroupeEventMap = CoreEventMap & PolicyEventMap;

/** Names of all troupe events. */
export type TroupeEventName = keyof TroupeEventMap;

/** An event as the engine produces it: its name and payload. */
export type EngineEvent = { [K in TroupeEventName]: { type: K } & TroupeEventMap[K] }[TroupeEventName];

/** The envelope every published event carries: the session, its place in the session's event log, and when (epoch ms). */
export const EnvelopeSchema = z.object({ session_id: str, seq: z.number().int(), at: num });

/** An event as published on the bus: stamped with session id, sequence number and time. */
export type TroupeEvent = EngineEvent & z.infer<typeof EnvelopeSchema>;

/** Builds an engine event of a given name. */
export function event<K extends TroupeEventName>(type: K, payload: TroupeEventMap[K]): EngineEvent {
  return { type, ...payload } as EngineEvent;
}
