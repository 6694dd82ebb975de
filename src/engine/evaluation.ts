import { z } from 'zod';
import { lazySchema } from '../config/lazy-schema.js';

/** Code from a workflow config, as the sandbox runs it. */
export const CodeSchema = lazySchema(() =>
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('expression'), source: z.string() }),
    z.object({ kind: z.literal('statements'), source: z.string() }),
    z.object({ kind: z.literal('template'), source: z.string() }),
    z.object({ kind: z.literal('handler'), name: z.string() }),
  ]),
);

/**
 * A model's answer as the chat-completions API gave it (what SynthDev's handlers read as
 * `this.last_response.choices[0].message`): its text (null when it only called tools), its tool calls
 * with their arguments as the JSON text the model wrote, why it stopped, the model and the usage.
 */
export const RawResponseSchema = lazySchema(() =>
  z.object({
    content: z.string().nullable(),
    tool_calls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })),
    finish_reason: z.string().nullable(),
    model: z.string(),
    usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).nullable(),
  }),
);
/** A model's answer as the chat-completions API gave it. */
export type RawResponse = z.infer<typeof RawResponseSchema>;

/** What code may read (and `common_data` it may change): the data of the running workflow, as JSON. */
export const ScopeSchema = lazySchema(() =>
  z.object({
    common_data: z.record(z.string(), z.unknown()),
    /** The state's evaluated input (the free name `input` in expressions). */
    input: z.unknown(),
    /** The workflow's input (`this.input`): its name, the text it was given as, and its value. */
    workflow_input: z.object({ name: z.string(), text: z.string(), value: z.unknown() }).optional(),
    contexts: z.record(z.string(), z.array(z.object({ role: z.string(), content: z.string() }))),
    /** Each context's max_length (code that adds messages trims as the engine does). */
    context_limits: z.record(z.string(), z.number()).optional(),
    /** Per agent role: its last answer and tool calls (for `getAgent(role).getLastResponse()`, `getToolCalls(role)`), its raw answer, its context and how it plays in it. */
    agents: z.record(
      z.string(),
      z.object({
        response: z.string(),
        toolCalls: z.array(z.object({ name: z.string(), arguments: z.unknown() })),
        raw: RawResponseSchema.optional(),
        context: z.string().optional(),
        role: z.enum(['user', 'assistant']).optional(),
      }),
    ),
    /** Every agent of the workflow, answered or not: its context and how it plays in it (`this.agents`, `getContextRole()`). */
    roster: z.record(z.string(), z.object({ context: z.string(), role: z.enum(['user', 'assistant']) })).optional(),
    /** The last agent's answer as the API gave it (`this.last_response`). */
    last_response: RawResponseSchema.nullable().optional(),
    last_agent_response: z.string().nullable(),
    last_tool_calls: z.array(z.object({ name: z.string(), arguments: z.unknown() })),
    sub_workflow_result: z.unknown().optional(),
    /** The failure an error handler is deciding about (seed 001's `this.last_error`). */
    last_error: z.object({ state: z.string(), message: z.string() }).optional(),
  }),
);
/** What code may read. */
export type Scope = z.infer<typeof ScopeSchema>;

/** What an evaluation is for: entry code, the input, after-code, the transitions, a handler naming the next state, sub-workflow inputs. */
export const PurposeSchema = lazySchema(() => z.enum(['enter', 'input', 'after', 'transitions', 'decide', 'sub_input', 'branch_input', 'debate_input', 'error']));

/** The code of an evaluation (without its scope). */
const RequestFields = lazySchema(() => ({
  purpose: PurposeSchema,
  /** One piece of code (enter, input, after, decide). */
  code: CodeSchema.optional(),
  /** Conditions in order; the first that holds has its `before` run (transitions). `target` names the state (messages, chaining). */
  transitions: z.array(z.object({ condition: CodeSchema.nullable(), before: CodeSchema.nullable(), target: z.string().optional() })).optional(),
  /** Named expressions, each evaluated (sub_input). */
  fields: z.record(z.string(), CodeSchema).optional(),
}));

/** An evaluation the engine will ask for after another one succeeds, and what it will ask for after it. */
export interface ChainStep {
  purpose: z.infer<typeof PurposeSchema>;
  code?: z.infer<typeof CodeSchema>;
  transitions?: { condition: z.infer<typeof CodeSchema> | null; before: z.infer<typeof CodeSchema> | null; target?: string }[];
  fields?: Record<string, z.infer<typeof CodeSchema>>;
  /** Asked for next whatever this step gives (after-code, then the transitions). */
  next?: ChainStep;
  /** Asked for next in the state this step chooses (transitions, a transition handler): that state's entry code or input. */
  targets?: Record<string, ChainStep>;
}

/** zod schema of a chain step (recursive). */
export const ChainStepSchema: z.ZodType<ChainStep> = z.lazy(() => z.object({ ...RequestFields, next: ChainStepSchema.optional(), targets: z.record(z.string(), ChainStepSchema).optional() }));

/** One evaluation the engine asks the runtime for: code of a state, run in the sandbox against a scope. */
export const EvaluationSchema = lazySchema(() =>
  z.object({
    /** Which workflow and state it is for (messages name them). */
    workflow: z.string(),
    state: z.string(),
    ...RequestFields,
    /**
     * What the engine will ask for after this evaluation when it succeeds (the transitions after the
     * after-code; the entry code of the state they choose; its input): run in the same job, each from what
     * the one before left, when it needs code; the results come back nested in the result's `next`.
     */
    next: ChainStepSchema.optional(),
    targets: z.record(z.string(), ChainStepSchema).optional(),
    scope: ScopeSchema,
  }),
);
/** One evaluation the engine asks for. */
export type Evaluation = z.infer<typeof EvaluationSchema>;

const Succeeded = lazySchema(() =>
  z.object({
    ok: z.literal(true),
    value: z.unknown(),
    common_data: z.record(z.string(), z.unknown()),
    /** What the code printed with console.log / warn / error (capped). */
    logs: z.array(z.string()).optional(),
    /** Contexts the code added messages to (`getContext(name).addMessage(...)`): their whole message lists after it. */
    contexts: z.record(z.string(), z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() }))).optional(),
    /** Contexts whose messages the code never read and only added to: the messages it added, in order (within max_length). */
    appended: z.record(z.string(), z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() }))).optional(),
  }),
);
const Failed = lazySchema(() => z.object({ ok: z.literal(false), error: z.string() }));

/**
 * What an evaluation gave: the value (for transitions, the index taken or -1) and common_data after it; or
 * why it failed. `next`: the result of the chained evaluation that ran after it (absent in journals written
 * before chaining, and when the chain stopped: the engine then asks for it on its own).
 */
export type EvaluationResult = (z.infer<typeof Succeeded> & { next?: EvaluationResult }) | z.infer<typeof Failed>;

/** zod schema of an evaluation's result (recursive through `next`). */
export const EvaluationResultSchema: z.ZodType<EvaluationResult> = z.lazy(() => z.discriminatedUnion('ok', [Succeeded.extend({ next: EvaluationResultSchema.optional() }), Failed]));
