import { z } from 'zod';
import { AgentCallSchema } from '../../engine/moves.js';
import { ModeSchema } from '../../engine/session.js';
import type { MachineDefinition } from '../../engine/definition.js';
import type { TroupeEvent } from '../../engine/event-map.js';
import type { SessionState } from '../../engine/session.js';
import type { PriceTable } from '../../usage/price-table.js';
import type { UsageState } from '../../usage/usage-meter.js';
import { ChatResponseSchema } from '../../llm/chat-response-schema.js';

/** What the session object keeps beside the engine state: who runs it and when it changed. */
export const SessionMetaSchema = z.object({
  version: z.literal(1),
  id: z.string(),
  team: z.string(),
  /** The model label of the worker that started it. */
  model: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
/** What the session object keeps beside the engine state. */
export type SessionMeta = z.infer<typeof SessionMetaSchema>;

/** `start`: the brief and mode of a new session. */
export const StartRequestSchema = z.object({ brief: z.string().min(1), mode: ModeSchema.optional() });
/** `input`: a line exactly as typed in the terminal UI. */
export const InputRequestSchema = z.object({ text: z.string() });
/** `events`: the events after a sequence number, at most `limit` of them. */
export const EventsRequestSchema = z.object({ after: z.number().int().min(0), limit: z.number().int().min(1).max(2_000).optional() });

const ToolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.string() });
const MessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({ role: z.literal('assistant'), content: z.string(), toolCalls: z.array(ToolCallSchema).optional() }),
  z.object({ role: z.literal('tool'), toolCallId: z.string(), name: z.string(), content: z.string() }),
]);
const ToolSpecSchema = z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) });

/** One model call as the session object hands it to the model service: built in full from the session's state. */
export const ModelCallSchema = z.object({
  sessionId: z.string(),
  call: AgentCallSchema,
  model: z.string(),
  messages: z.array(MessageSchema),
  tools: z.array(ToolSpecSchema),
  toolChoice: z.union([z.enum(['auto', 'required', 'none']), z.object({ name: z.string() })]).optional(),
  meta: z.record(z.string(), z.unknown()),
  /** Lines of the offline demo story already said (a worker on the demo model continues it). */
  demoProgress: z.record(z.string(), z.number()).optional(),
});
/** One model call as the session object hands it to the model service. */
export type ModelCall = z.infer<typeof ModelCallSchema>;

const RetrySchema = z.object({ attempt: z.number(), waitMs: z.number(), reason: z.string() });

/** What a model call came to, as journaled by `ctx.run`: the answer (and whether the model is free), or why it failed; `at` when it finished (epoch ms). */
export const CallOutcomeSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), response: ChatResponseSchema, free: z.boolean(), retries: z.array(RetrySchema), at: z.number() }),
  z.object({ ok: z.literal(false), reason: z.string(), retries: z.array(RetrySchema), at: z.number() }),
]);
/** What a model call came to. */
export type CallOutcome = z.infer<typeof CallOutcomeSchema>;

/** `result`: a model call's outcome, sent back to the session object by the model service. */
export const ResultRequestSchema = z.object({ call: AgentCallSchema, model: z.string(), outcome: CallOutcomeSchema });
/** `result`: a model call's outcome. */
export type ResultRequest = z.infer<typeof ResultRequestSchema>;

/** What `events` answers: the events (oldest first), the last sequence number, and the session's status. */
export interface EventsPage {
  events: TroupeEvent[];
  lastSeq: number;
  status: string;
}

/** One entry of the session index. */
export const IndexEntrySchema = z.object({ id: z.string(), brief: z.string(), team: z.string(), createdAt: z.string() });
/** One entry of the session index. */
export type IndexEntry = z.infer<typeof IndexEntrySchema>;

/** What every session on a worker shares: the team's definition and prompts, persona models, prices. */
export interface SessionRuntime {
  def: MachineDefinition;
  prompts: Record<string, string>;
  modelFor: (personaId: string) => string;
  prices: PriceTable;
  /** The worker's model label (recorded in `session_started`). */
  modelLabel: string;
  /** The worker runs the offline demo: calls carry how far its story got. */
  demo: boolean;
}

/** The stored part of a session a turn starts from (its object state). */
export interface SessionRecord {
  state: SessionState;
  usage: UsageState | null;
  lastSeq: number;
}
