import { z } from 'zod';
import { lazySchema } from '../../config/lazy-schema.js';
import { AgentCallSchema } from '../../engine/moves.js';
import { ChangesSchema, ToolCallRecordSchema } from '../../engine/agent-reply.js';
import { EvaluationSchema, RawResponseSchema } from '../../engine/evaluation.js';

/** A message of a workflow context, in the canonical form its `assistant` agents see it. */
export const WorkflowMessageSchema = lazySchema(() =>
  z.object({
    role: z.enum(['system', 'user', 'assistant']),
    content: z.string(),
    /** The agent that said it (absent for starting messages). */
    from: z.string().optional(),
  }),
);
/** A message of a workflow context. */
export type WorkflowMessage = z.infer<typeof WorkflowMessageSchema>;

/** Where a state is in its work: entry code, input, the agent's turn (or branches, or debate), after-code, choosing the next state. */
export const PhaseSchema = lazySchema(() => z.enum(['enter', 'input', 'act', 'call', 'fanout', 'debate', 'after', 'transitions']));

/** One branch of a fan-out: its call while it runs, its result once it is done. */
export const BranchSchema = lazySchema(() =>
  z.object({
    agent: z.string(),
    status: z.enum(['pending', 'running', 'done', 'failed', 'cancelled', 'skipped']),
    call: AgentCallSchema.nullable(),
    input: z.string(),
    text: z.string().optional(),
    toolCalls: z.array(ToolCallRecordSchema).optional(),
    changes: ChangesSchema.optional(),
    error: z.string().optional(),
  }),
);
/** One branch of a fan-out. */
export type Branch = z.infer<typeof BranchSchema>;

/** A reviewer's structured verdict in a debate round. */
export const VerdictSchema = lazySchema(() =>
  z.object({
    reviewer: z.string(),
    agree: z.boolean(),
    approve: z.boolean(),
    feedback: z.string(),
    ranking: z.array(z.string()),
  }),
);
/** A reviewer's verdict. */
export type Verdict = z.infer<typeof VerdictSchema>;

/**
 * A debate in progress: the round, whose turn it is, the verdicts of each round, the debate so far (each
 * reviewer's whole message with its verdict), the call in flight, and the first round's independent
 * reviews while they run at once (`pending`: reviewer -> call; absent in debates stored before).
 */
export const DebateSchema = lazySchema(() =>
  z.object({
    subject: z.string(),
    round: z.number().int(),
    turn: z.number().int(),
    rounds: z.array(z.array(VerdictSchema)),
    transcript: z.array(z.object({ reviewer: z.string(), round: z.number().int(), text: z.string(), verdict: VerdictSchema.optional() })),
    call: AgentCallSchema.nullable(),
    synthesising: z.boolean(),
    pending: z.record(z.string(), AgentCallSchema).optional(),
  }),
);
/** A debate in progress. */
export type Debate = z.infer<typeof DebateSchema>;

/** One running workflow (the root, or a sub-workflow on top of its parent): its place and its data. */
export const FrameSchema = lazySchema(() =>
  z.object({
    /** Sub-workflow names from the root plan down to this one (empty for the root). */
    plan: z.array(z.string()),
    /** Path of the compound state holding this workflow's states (empty for the root). */
    prefix: z.array(z.string()),
    state: z.string(),
    phase: PhaseSchema,
    common_data: z.record(z.string(), z.unknown()),
    contexts: z.record(z.string(), z.array(WorkflowMessageSchema)),
    /** Each agent's last answer and tool calls (what `getAgent(role).getLastResponse()` reads), and the answer as the API gave it. */
    agents: z.record(z.string(), z.object({ response: z.string(), toolCalls: z.array(ToolCallRecordSchema), turns: z.number().int(), raw: RawResponseSchema.optional() })),
    /** The workflow's input as given (`this.input`): the text and its value (absent in runs stored before it: common_data has it). */
    workflowInput: z.object({ text: z.string(), value: z.unknown() }).optional(),
    lastAgent: z.string().nullable(),
    /** The evaluated input of the current state. */
    input: z.string().nullable(),
    subWorkflowResult: z.unknown().optional(),
    /** Failed tries of the current state so far. */
    retries: z.number().int(),
    /** The branches of a parallel state while they run. */
    branches: z.record(z.string(), BranchSchema).optional(),
    /** A debate state's debate while it runs. */
    debate: DebateSchema.optional(),
  }),
);
/** One running workflow. */
export type Frame = z.infer<typeof FrameSchema>;

/**
 * The current round of the loop guard (a round starts with the run and with each !continue): state entries
 * and bytes of data workflow code returned in it, the agent turn it began at, and the last states entered
 * (newest last) to name the loop with.
 */
export const LoopRoundSchema = lazySchema(() =>
  z.object({
    entries: z.number().int(),
    bytes: z.number().int(),
    turn: z.number().int(),
    trail: z.array(z.string()),
  }),
);
/** The current round of the loop guard. */
export type LoopRound = z.infer<typeof LoopRoundSchema>;

/** A workflow run: its frames (root first), the evaluation it waits for, a question to the user, the outcome. */
export const WorkflowRunSchema = lazySchema(() =>
  z.object({
    frames: z.array(FrameSchema),
    evalSeq: z.number().int(),
    /** The evaluation in flight: its id, what it is for, and the request (sent again when a crashed session resumes). */
    evaluating: z.object({ id: z.string(), purpose: z.string(), evaluation: EvaluationSchema }).nullable(),
    /** An agent asked the user (request_users_input): the answer goes back as that tool's result. */
    question: z.object({ agent: z.string(), toolCallId: z.string(), question: z.string(), said: z.string().optional(), arguments: z.string().optional(), input: z.string().optional() }).nullable(),
    output: z.unknown().optional(),
    error: z.string().nullable(),
    /** User input that came while branches ran or reviewers debated: it goes to the resume state once they are done, else to the next agent's turn. */
    deferredInput: z.string().optional(),
    /** The loop guard's round (absent in runs stored before it: a fresh round). */
    loop: LoopRoundSchema.optional(),
  }),
);
/** A workflow run. */
export type WorkflowRun = z.infer<typeof WorkflowRunSchema>;

/** Where a session keeps a workflow run: `workflow` (absent before the run starts). */
export const WORKFLOW_STATE_SLOTS = lazySchema(() => ({ workflow: WorkflowRunSchema.nullable().optional() }));

declare module '../../engine/session.js' {
  interface PolicySlots {
    /** A declarative workflow's run (workflow sessions, once started). */
    workflow?: WorkflowRun | null;
  }
}
