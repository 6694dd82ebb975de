import { z } from 'zod';
import { DirectiveResultSchema } from '../directive/schema.js';
import { ModeSchema } from './session.js';
import { EvaluationResultSchema } from './evaluation.js';
import { ChangesSchema, ToolCallRecordSchema } from './agent-reply.js';

/** The typed command line a user input came from, kept for the `command` event. */
const CommandSchema = z.object({ name: z.string(), args: z.array(z.string()) }).optional();

/**
 * Everything the engine consumes: model results from the runtime and user actions. Each one is appended
 * to the session's journal, so folding `step()` over the journal rebuilds the session exactly.
 */
export const EngineInputSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('start'), brief: z.string(), model: z.string().optional() }),
  z.object({ type: z.literal('agent_completed'), turnId: z.string(), text: z.string(), directive: DirectiveResultSchema }),
  z.object({ type: z.literal('agent_failed'), turnId: z.string(), reason: z.string() }),
  /** A workflow agent answered: its words and the tool calls it made (parsing tools are recorded, not run). */
  z.object({ type: z.literal('agent_replied'), turnId: z.string(), text: z.string(), toolCalls: z.array(ToolCallRecordSchema), changes: ChangesSchema.optional() }),
  /** The sandbox ran a workflow's code (or could not). */
  z.object({ type: z.literal('evaluated'), id: z.string(), result: EvaluationResultSchema }),
  z.object({ type: z.literal('user_message'), text: z.string() }),
  z.object({ type: z.literal('user_approve'), command: CommandSchema }),
  z.object({ type: z.literal('user_rework'), reason: z.string(), command: CommandSchema }),
  z.object({ type: z.literal('user_handoff'), target: z.string(), command: CommandSchema }),
  z.object({ type: z.literal('user_switch_major'), major: z.string(), command: CommandSchema }),
  z.object({ type: z.literal('user_call_agent'), target: z.string(), message: z.string(), command: CommandSchema }),
  z.object({ type: z.literal('user_continue'), command: CommandSchema }),
  z.object({ type: z.literal('user_mode'), mode: ModeSchema, command: CommandSchema }),
  z.object({ type: z.literal('user_quit'), command: CommandSchema }),
  z.object({ type: z.literal('budget_exceeded'), reason: z.string(), turnId: z.string().optional() }),
  /** The process lets go of a session that is not over (quit, or a headless run that stops waiting). */
  z.object({ type: z.literal('detach'), reason: z.string(), detail: z.string().optional(), command: CommandSchema }),
]);

/** Events the engine consumes. */
export type EngineInput = z.infer<typeof EngineInputSchema>;
