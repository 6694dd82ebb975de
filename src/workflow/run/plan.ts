import { z } from 'zod';
import { lazySchema } from '../../config/lazy-schema.js';
import { CodeSchema } from '../../engine/evaluation.js';
import { WarmingSettingsSchema } from '../../config/team-schema.js';

/** Code from the config, as the sandbox runs it. */
export type Code = z.infer<typeof CodeSchema>;

/** A conversation history: shared by the agents connected to it, trimmed to max_length characters. */
export const ContextPlanSchema = lazySchema(() =>
  z.object({
    name: z.string(),
    starting: z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() })),
    maxLength: z.number().int(),
  }),
);
/** A conversation history. */
export type ContextPlan = z.infer<typeof ContextPlanSchema>;

/** An agent of the workflow: a role (or a team persona) playing `user` or `assistant` in a context. */
export const AgentPlanSchema = lazySchema(() =>
  z.object({
    /** The agent_role: the id states name it by. */
    id: z.string(),
    context: z.string(),
    role: z.enum(['user', 'assistant']),
    /** Display name. */
    name: z.string(),
    systemMessage: z.string(),
    /** Model tier (base / smart / fast) or a model id. */
    model: z.string(),
    /** Parsing tools: offered to the model, their calls recorded (not executed), read by conditions. */
    parsingTools: z.array(z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) })),
    /** The role may ask the user (seed 003's request_users_input tool). */
    requestUserInput: z.boolean(),
    /** Agent tools the role may use (file and command tools, confined to its workspace). */
    tools: z.array(z.string()),
    /** Most tool calls in one turn before the turn is cut off. */
    maxToolSteps: z.number().int(),
    /** A parsing tool every request of this agent forces (SynthDev's only `parsingOnly` tool of the role). */
    forcedTool: z.string().optional(),
    /** Few-shot messages after the system message. */
    examples: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() })).optional(),
    /** Which commands run_command may run. */
    commandPolicy: z.union([z.enum(['deny', 'ask']), z.object({ allow: z.array(z.string()), network: z.boolean().optional() })]).optional(),
  }),
);
/** An agent of the workflow. */
export type AgentPlan = z.infer<typeof AgentPlanSchema>;

/** Branches that run at the same time, each its own agent, joined by a policy (seed 002). */
export const ParallelPlanSchema = lazySchema(() =>
  z.object({
    branches: z.array(
      z.object({
        id: z.string(),
        agent: z.string(),
        input: CodeSchema.nullable(),
        workspace: z.boolean(),
        /** The branch runs only when this holds (e.g. only the best-ranked implementer revises). */
        when: CodeSchema.nullable().optional(),
      }),
    ),
    join: z.union([z.enum(['all', 'any']), z.object({ quorum: z.number().int() })]),
    /** A failed branch: the join goes on with the others, or the state fails. */
    onFailure: z.enum(['continue', 'fail']),
    /** A branch that takes longer is cut off and counts as failed (null: no limit). */
    timeoutMs: z.number().int().nullable(),
    /** Where the branches' results go in common_data (default: the state's name). */
    into: z.string(),
  }),
);
/** Branches that run at the same time. */
export type ParallelPlan = z.infer<typeof ParallelPlanSchema>;

/** Reviewers who take turns on a shared debate context until they agree (seed 002). */
export const DebatePlanSchema = lazySchema(() =>
  z.object({
    reviewers: z.array(z.string()),
    /** What the reviewers debate (evaluated once, at the start). */
    input: CodeSchema.nullable(),
    /** A common_data key holding a parallel state's results: each implementation (summary, files, diff) is put before the reviewers. */
    implementations: z.string().nullable().optional(),
    maxRounds: z.number().int(),
    /** Writes the consensus from the debate when the rounds run out without one. */
    synthesiser: z.string(),
    /** Where the outcome goes in common_data (default: the state's name). */
    into: z.string(),
  }),
);
/** Reviewers who debate. */
export type DebatePlan = z.infer<typeof DebatePlanSchema>;

/** One transition: taken when `condition` holds (in order), after running `before`. */
export const TransitionPlanSchema = lazySchema(() => z.object({ target: z.string(), condition: CodeSchema.nullable(), before: CodeSchema.nullable() }));
/** One transition. */
export type TransitionPlan = z.infer<typeof TransitionPlanSchema>;

/** One state of a workflow. */
export const StatePlanSchema = lazySchema(() =>
  z.object({
    name: z.string(),
    /** Runs first on entry (action.script, pre_handler). */
    enter: CodeSchema.nullable(),
    agent: z.string().nullable(),
    /** What the agent is sent (input expression or message template). */
    input: CodeSchema.nullable(),
    action: z.enum(['send', 'add', 'clear']),
    /** Runs after the agent answered (post_handler). */
    after: CodeSchema.nullable(),
    subWorkflow: z.object({ name: z.string(), input: z.record(z.string(), CodeSchema) }).nullable(),
    parallel: ParallelPlanSchema.nullable(),
    debate: DebatePlanSchema.nullable(),
    transitions: z.array(TransitionPlanSchema),
    /** A handler that names the next state (transition_handler), instead of conditions. */
    decide: CodeSchema.nullable(),
    /** How often a failed model call or evaluation of this state is tried again before the error handler. */
    maxRetries: z.number().int(),
    /** A state with no way out ends the run (seed 000's `stop`). */
    final: z.boolean(),
    /** SynthDev's handler state: its handlers own the context (the call adds nothing to it, the answer is not appended). */
    owned: z.boolean().optional(),
    /** A final state's `input` (SynthDev): the run's output is this common_data path's value, or this text, when set. */
    output: z.union([z.object({ path: z.array(z.string()) }), z.object({ text: z.string() })]).optional(),
    /** Where this state's failures go once its retries are spent: a state, or a handler naming one ("retry", "stop"). */
    onError: z
      .union([z.object({ state: z.string() }), z.object({ code: CodeSchema })])
      .nullable()
      .optional(),
  }),
);
/** One state of a workflow. */
export type StatePlan = z.infer<typeof StatePlanSchema>;

/** The fields of a workflow plan besides its sub-workflows. */
const PlanFields = lazySchema(() =>
  z.object({
    name: z.string(),
    description: z.string(),
    input: z.object({ name: z.string(), type: z.string().optional(), description: z.string().optional(), required: z.boolean().optional(), default: z.unknown().optional() }),
    output: z.object({ name: z.string(), type: z.string().optional() }),
    variables: z.record(z.string(), z.unknown()),
    contexts: z.array(ContextPlanSchema),
    agents: z.array(AgentPlanSchema),
    states: z.array(StatePlanSchema),
    /** The state a run starts in (seed 000: `start`; otherwise the first state). */
    start: z.string(),
    /** The state unsolicited user input goes to (seed 003), when the workflow has one. */
    resume: z.string().nullable(),
    /** The state errors go to (seed 001), when the workflow has one. */
    errorHandler: z.string().nullable(),
    /** A script.js function deciding what a failed state does (returns a state name, "retry" or "stop"); wins over errorHandler. */
    errorDecider: CodeSchema.nullable().optional(),
    /** Agent turns before the run pauses for the user (default: the engine's). */
    maxTurns: z.number().int().optional(),
    /** State entries before the run pauses for the user (default: ten per turn of max_turns). */
    maxStateEntries: z.number().int().optional(),
    /** script.js source (its functions are called by name), if the workflow folder has one. */
    script: z.string().nullable(),
    /** How agent workspaces start: a copy (or git clone) of this absolute directory, or empty. */
    workspace: z.object({ from: z.string().nullable(), git: z.boolean() }).optional(),
    /** Predicting the next agent and warming its prompt (absent: the default, predictions only). */
    warming: WarmingSettingsSchema.optional(),
    /** Where the workflow came from (for messages). */
    source: z.string(),
    /**
     * Contexts follow seed 000 and SynthDev: trimming keeps 10 messages besides the system ones, and code's
     * changes to a context are taken whole. Absent in plans stored with sessions before: those fold as they ran.
     */
    seedContexts: z.literal(true).optional(),
    /** Seed 003's role mode (`role:<id>`): where the run would end, it waits for the user's next message instead. */
    chat: z.literal(true).optional(),
  }),
);

/**
 * A workflow as the engine runs it: the loader's validated config, normalised (one shape for the seeds'
 * variants: `message` templates, `next_state`, handlers, arrow-function strings) and with its roles and
 * sub-workflows resolved. Code is kept as source; the sandbox runs it. Plain data: stored with a session.
 */
export type WorkflowPlan = z.infer<typeof PlanFields> & { subWorkflows: Record<string, WorkflowPlan> };

/** zod schema of a workflow plan (recursive through its sub-workflows). */
export const WorkflowPlanSchema: z.ZodType<WorkflowPlan> = lazySchema(() =>
  PlanFields.extend({
    subWorkflows: z.record(
      z.string(),
      z.lazy(() => WorkflowPlanSchema),
    ),
  }),
);

declare module '../../engine/definition.js' {
  interface DefinitionSlots {
    /** The workflow plan (workflow definitions only). */
    workflow?: WorkflowPlan;
    /**
     * Whether the steps run the host tier on workflow code (workflow definitions only; absent: they do, as sessions
     * run). False leaves every evaluation that runs code to the session's evaluator (benches of the sandbox itself).
     */
    tierInStep?: boolean;
  }
}
