import { z } from 'zod';
import { MAX_TURNS } from '../../config/max-turns.js';
import { WarmingSchema } from '../../config/team-schema.js';

const Name = z.string().min(1);
/** Code in a workflow file: an expression, statements, an arrow-function string, or a handler name. */
const CodeText = z.string();
/** A handler field: a function name or code; null (SynthDev's way of writing "none") is no handler. */
const HandlerText = CodeText.nullable();

/** A workflow's input or output parameter (seed 000; seed 001 adds `required` and `default`). */
export const ParameterSchema = z.strictObject({
  name: Name,
  type: z.enum(['string', 'number', 'boolean', 'object', 'array']).optional(),
  description: z.string().optional(),
  required: z.boolean().optional(),
  default: z.unknown().optional(),
});

/** A message a context starts with. */
export const StartingMessageSchema = z.strictObject({ role: z.enum(['system', 'user', 'assistant']), content: z.string() });

/** A conversation history agents share or keep to themselves. */
export const ContextSchema = z.strictObject({
  name: Name,
  starting_messages: z.array(StartingMessageSchema).default([]),
  max_length: z.number().int().min(1).default(50_000).describe('Characters kept; the oldest messages after the starting ones go first.'),
});

/** An agent: a role (roles.json or a team persona) playing `user` or `assistant` in a context. */
export const AgentSchema = z.strictObject({
  agent_role: Name,
  context: Name,
  role: z.enum(['user', 'assistant']).default('assistant'),
  model: z.string().min(1).optional().describe("A tier (base, smart, fast) or a model id; overrides the role's level."),
});

/** A state's action (seed 000): the agent function, a script, or a sub-workflow. */
export const ActionSchema = z.strictObject({
  function: z.enum(['sendUserMessage', 'addUserMessage', 'clearConversation']).optional(),
  script: CodeText.optional(),
  sub_workflow: z
    .string()
    .regex(/^[^/\\.][^/\\]*$/, 'must be a workflow name (looked up next to this workflow and in the workflow directories), not a path')
    .optional(),
  sub_workflow_input: z.record(z.string(), CodeText).optional(),
});

/** A transition: taken when its condition holds (first match wins), after running `before`. */
export const TransitionSchema = z.strictObject({
  target: Name,
  condition: CodeText.default('true'),
  before: CodeText.optional(),
});

/** One branch of a parallel state: its agent, its input, whether it gets a workspace of its own. */
export const BranchSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'must be a simple id (letters, digits, _ and -)'),
  agent: Name,
  input: CodeText.optional(),
  workspace: z.boolean().default(false),
  when: CodeText.optional().describe('The branch runs only when this expression is true (e.g. only the best-ranked implementer revises).'),
});

/** A parallel state (troupe, seed 002): branches at the same time, joined by a policy. */
export const ParallelSchema = z.strictObject({
  branches: z.array(BranchSchema).min(1),
  join: z.union([z.enum(['all', 'any']), z.strictObject({ quorum: z.number().int().min(1) })]).default('all'),
  on_failure: z.enum(['continue', 'fail']).default('continue').describe('A failed branch: go on with the others, or fail the state.'),
  timeout_ms: z.number().int().min(1).optional(),
  into: Name.optional().describe('common_data key for the results (default: the state name).'),
});

/** A debate state (troupe, seed 002): reviewers take turns until they agree or the rounds run out. */
export const DebateSchema = z.strictObject({
  reviewers: z.array(Name).min(1),
  input: CodeText.optional(),
  implementations: Name.optional().describe('The common_data key of a parallel state\'s results (its "into"): each implementation\'s summary, changed files and diff is put before the reviewers.'),
  max_rounds: z.number().int().min(1).max(20).default(3),
  synthesiser: Name.optional().describe('Writes the consensus when the rounds run out (default: the first reviewer).'),
  into: Name.optional().describe('common_data key for the outcome (default: the state name).'),
});

/** One state: seed 000's fields, seed 001's handlers and retries, troupe's parallel and debate states. */
export const StateSchema = z.strictObject({
  name: Name,
  agent: Name.optional(),
  input: CodeText.optional().describe('An expression whose value the agent is sent.'),
  message: z.string().optional().describe('A message template with {placeholders} (seed 001).'),
  action: ActionSchema.optional(),
  transition: z.array(TransitionSchema).optional(),
  next_state: Name.optional(),
  pre_handler: HandlerText.optional(),
  post_handler: HandlerText.optional(),
  transition_handler: HandlerText.optional(),
  error_handler: HandlerText.optional().describe('A state name, or a script.js function returning a state name, "retry" or "stop".'),
  max_retries: z.number().int().min(0).max(10).optional(),
  parallel: ParallelSchema.optional(),
  debate: DebateSchema.optional(),
});

/** A workflow file (seed 000's schema, seed 001's layout, troupe's extensions). */
export const WorkflowConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  workflow_name: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'must be a simple name (letters, digits, _ and -)'),
  description: z.string().default(''),
  input: ParameterSchema.default({ name: 'input' }),
  output: ParameterSchema.default({ name: 'output' }),
  variables: z.record(z.string(), z.unknown()).default({}),
  contexts: z.array(ContextSchema).default([]),
  agents: z.array(AgentSchema).default([]),
  states: z.array(StateSchema).min(1),
  error_handler: CodeText.optional().describe('A state errors go to, or a script.js function returning one.'),
  max_retries: z.number().int().min(0).max(10).default(0).describe('Default retries of a failed state.'),
  max_turns: z.number().int().min(1).max(MAX_TURNS).optional().describe('Agent turns before the run pauses for the user.'),
  max_state_entries: z
    .number()
    .int()
    .min(1)
    .max(MAX_TURNS)
    .optional()
    .describe('State entries (any state, with or without an agent) before the run pauses for the user; !continue allows as many again. Default: 10 x max_turns.'),
  workspace: z
    .strictObject({
      from: z.string().min(1).optional().describe('A directory (relative to where troupe runs) each agent workspace starts as a copy of.'),
      git: z.boolean().default(false).describe('Make each workspace a git clone of the repository holding "from" (at its HEAD).'),
    })
    .optional()
    .describe('Where agents with file and command tools work: each gets its own directory under the session.'),
  warming: WarmingSchema.optional().describe(
    'Predicting the next agent from the transition table and warming its prompt, as team.json\'s warming: "off", "predict" (default), "prefix", or the settings.',
  ),
});

/** SynthDev's and seed 000's `workflows.json`: several workflows in one file, each found by its workflow_name. */
export const WorkflowsFileSchema = z.array(z.unknown()).min(1);

/** A workflow file, as validated. */
export type WorkflowConfig = z.infer<typeof WorkflowConfigSchema>;
/** A state of a workflow file. */
export type StateConfig = z.infer<typeof StateSchema>;
