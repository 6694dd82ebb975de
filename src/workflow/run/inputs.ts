import { z } from 'zod';
import { ChangesSchema, ToolCallRecordSchema } from '../../engine/agent-reply.js';
import { EvaluationResultSchema, RawResponseSchema } from '../../engine/evaluation.js';
import { lazySchema } from '../../config/lazy-schema.js';

/** The inputs the workflow policy adds: an agent's answer with the tool calls it made, and the sandbox's result. */
export const WORKFLOW_INPUT_SCHEMAS = lazySchema(
  () =>
    [
      /** A workflow agent answered: its words and the tool calls it made (parsing tools are recorded, not run). */
      z.object({
        type: z.literal('agent_replied'),
        turnId: z.string(),
        text: z.string(),
        toolCalls: z.array(ToolCallRecordSchema),
        changes: ChangesSchema.optional(),
        raw: RawResponseSchema.optional(),
      }),
      /** The sandbox ran a workflow's code (or could not). */
      z.object({ type: z.literal('evaluated'), id: z.string(), result: EvaluationResultSchema }),
    ] as const,
  [],
);

/** An input of the workflow policy. */
export type WorkflowInput = z.infer<(typeof WORKFLOW_INPUT_SCHEMAS)[number]>;

declare module '../../engine/input-events.js' {
  interface PolicyInputs {
    workflow: WorkflowInput;
  }
}
