import { z } from 'zod';
import { DecisionSchema } from '../arbiter/proposal.js';
import { DirectiveSchema } from '../directive/schema.js';
import { AwaitCodeSchema, TransitionKindSchema } from './moves.js';
import { ModeSchema } from './session.js';

const str = z.string();
const num = z.number();

/** The payload schema of every troupe event, keyed by its snake_case name (the one source of their shapes). */
export const EVENT_PAYLOADS = {
  session_started: z.object({ brief: str, mode: ModeSchema, team: str, model: str, initial: str }),
  state_entered: z.object({ path: str, persona: str, major: str }),
  major_entered: z.object({ major: str }),
  major_exited: z.object({ major: str }),
  agent_started: z.object({ turn_id: str, path: str, persona: str, attempt: num, model: str, inbox: str, branch: str.optional() }),
  agent_delta: z.object({ turn_id: str, persona: str, text: str.optional(), tool_arguments: str.optional(), branch: str.optional() }),
  agent_message: z.object({ turn_id: str, path: str, persona: str, text: str, turn: num, branch: str.optional() }),
  agent_aborted: z.object({ turn_id: str, persona: str, reason: str, branch: str.optional() }),
  /** An agent ran a tool (file or command) in its workspace: started, then finished with ok or an error the model saw. */
  tool_call: z.object({ turn_id: str, persona: str, tool: str, summary: str, phase: z.enum(['started', 'finished']), ok: z.boolean().optional(), detail: str.optional(), branch: str.optional() }),
  /** A command an agent wants to run under the `ask` policy: asked (the user answers !allow or !deny), then allowed or denied. */
  command_approval: z.object({ id: str, phase: z.enum(['asked', 'allowed', 'denied']), command: str, cwd: str, persona: str, branch: str.optional() }),
  /** A parallel state's branches: fanned out, then joined (which succeeded, which failed and why). */
  fanout: z.object({ state: str, branches: z.array(str), join: str }),
  joined: z.object({ state: str, done: z.array(str), failed: z.array(z.object({ branch: str, error: str })), outcome: z.enum(['continue', 'fail']) }),
  /** A reviewer's verdict in a debate round, and how the debate ended. */
  verdict: z.object({ state: str, round: num, reviewer: str, agree: z.boolean(), approve: z.boolean(), feedback: str }),
  debate_ended: z.object({ state: str, rounds: num, consensus: z.boolean(), approve: z.boolean(), synthesised: z.boolean() }),
  directive: z.object({ turn_id: str, path: str, persona: str, directive: DirectiveSchema, source: z.enum(['tool', 'text']) }),
  directive_invalid: z.object({ turn_id: str, persona: str, error: str, attempt: num, repairing: z.boolean() }),
  arbitration: z.object({ from: str, decision: DecisionSchema }),
  transition: z.object({ from: str, to: str, reason: str, kind: TransitionKindSchema }),
  approval: z.object({ turn: num.optional(), by: str, of: str, status: z.enum(['APPROVED', 'REQUEST_REWORK']), reason: str.optional() }),
  memory_compressed: z.object({ turns_in: num, tokens_before: num, tokens_after: num, summaries: num }),
  memory_trimmed: z.object({ persona: str, dropped: z.array(str), tokens_before: num, tokens_after: num, budget: num }),
  awaiting_user: z.object({ reason: str, code: AwaitCodeSchema, pending: z.object({ from: str, to: str, reason: str }).optional() }),
  user_input: z.object({ text: str }),
  command: z.object({ name: str, args: z.array(str) }),
  mode_changed: z.object({ mode: ModeSchema }),
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
} as const;

type Payloads = typeof EVENT_PAYLOADS;

/** Payload of every troupe event, keyed by its snake_case name. */
export type TroupeEventMap = { [K in keyof Payloads]: z.infer<Payloads[K]> };

/** Names of all troupe events. */
export type TroupeEventName = keyof TroupeEventMap;

/** The names of every event, in declaration order. */
export const EVENT_NAMES = Object.keys(EVENT_PAYLOADS) as TroupeEventName[];

/** An event as the engine produces it: its name and payload. */
export type EngineEvent = { [K in TroupeEventName]: { type: K } & TroupeEventMap[K] }[TroupeEventName];

/** zod schema of an engine event (any name). */
export const EngineEventSchema = z.discriminatedUnion(
  'type',
  EVENT_NAMES.map((name) => EVENT_PAYLOADS[name].extend({ type: z.literal(name) })) as unknown as [z.ZodObject, ...z.ZodObject[]],
) as unknown as z.ZodType<EngineEvent>;

/** The envelope every published event carries: the session, its place in the session's event log, and when (epoch ms). */
export const EnvelopeSchema = z.object({ session_id: str, seq: z.number().int(), at: num });

/** An event as published on the bus: stamped with session id, sequence number and time. */
export type TroupeEvent = EngineEvent & z.infer<typeof EnvelopeSchema>;

/** Builds an engine event of a given name. */
export function event<K extends TroupeEventName>(type: K, payload: TroupeEventMap[K]): EngineEvent {
  return { type, ...payload } as EngineEvent;
}
