import { z } from 'zod';

/** A message of a workflow context, in the canonical form its `assistant` agents see it. */
export const WorkflowMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string(),
  /** The agent that said it (absent for starting messages). */
  from: z.string().optional(),
});
/** A message of a workflow context. */
export type WorkflowMessage = z.infer<typeof WorkflowMessageSchema>;

/** A tool call an agent made: its name and parsed arguments (parsing tools are recorded, not executed). */
export const ToolCallRecordSchema = z.object({ id: z.string().optional(), name: z.string(), arguments: z.unknown() });
/** A recorded tool call. */
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>;

/** Where a state is in its work: entry code, input, the agent's turn, after-code, choosing the next state. */
export const PhaseSchema = z.enum(['enter', 'input', 'act', 'call', 'after', 'transitions']);

/** One running workflow (the root, or a sub-workflow on top of its parent): its place and its data. */
export const FrameSchema = z.object({
  /** Sub-workflow names from the root plan down to this one (empty for the root). */
  plan: z.array(z.string()),
  /** Path of the compound state holding this workflow's states (empty for the root). */
  prefix: z.array(z.string()),
  state: z.string(),
  phase: PhaseSchema,
  common_data: z.record(z.string(), z.unknown()),
  contexts: z.record(z.string(), z.array(WorkflowMessageSchema)),
  /** Each agent's last answer and tool calls (what `getAgent(role).getLastResponse()` reads). */
  agents: z.record(z.string(), z.object({ response: z.string(), toolCalls: z.array(ToolCallRecordSchema), turns: z.number().int() })),
  lastAgent: z.string().nullable(),
  /** The evaluated input of the current state. */
  input: z.string().nullable(),
  subWorkflowResult: z.unknown().optional(),
  /** Failed tries of the current state so far. */
  retries: z.number().int(),
});
/** One running workflow. */
export type Frame = z.infer<typeof FrameSchema>;

/** A workflow run: its frames (root first), the evaluation it waits for, a question to the user, the outcome. */
export const WorkflowRunSchema = z.object({
  frames: z.array(FrameSchema),
  evalSeq: z.number().int(),
  /** The evaluation in flight: its id and what it is for. */
  evaluating: z.object({ id: z.string(), purpose: z.string() }).nullable(),
  /** An agent asked the user (request_users_input): the answer goes back as that tool's result. */
  question: z.object({ agent: z.string(), toolCallId: z.string(), question: z.string() }).nullable(),
  output: z.unknown().optional(),
  error: z.string().nullable(),
});
/** A workflow run. */
export type WorkflowRun = z.infer<typeof WorkflowRunSchema>;
