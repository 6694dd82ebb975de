/**
 * A workflow as the engine runs it: the loader's validated config, normalised (one shape for the seeds'
 * variants: `message` templates, `next_state`, handlers, arrow-function strings) and with its roles and
 * sub-workflows resolved. Code is kept as source; the sandbox runs it.
 */
export interface WorkflowPlan {
  name: string;
  description: string;
  input: { name: string; type?: string; description?: string };
  output: { name: string; type?: string };
  variables: Record<string, unknown>;
  contexts: ContextPlan[];
  agents: AgentPlan[];
  states: StatePlan[];
  /** The state a run starts in (seed 000: `start`; otherwise the first state). */
  start: string;
  /** The state unsolicited user input goes to (seed 003), when the workflow has one. */
  resume: string | null;
  /** The state errors go to (seed 001), when the workflow has one. */
  errorHandler: string | null;
  /** script.js source (its functions are called by name), if the workflow folder has one. */
  script: string | null;
  /** Sub-workflows by name (resolved recursively by the loader). */
  subWorkflows: Record<string, WorkflowPlan>;
  /** Where the workflow came from (for messages). */
  source: string;
}

/** A conversation history: shared by the agents connected to it, trimmed to max_length characters. */
export interface ContextPlan {
  name: string;
  starting: { role: 'system' | 'user' | 'assistant'; content: string }[];
  maxLength: number;
}

/** An agent of the workflow: a role (or a team persona) playing `user` or `assistant` in a context. */
export interface AgentPlan {
  /** The agent_role: the id states name it by. */
  id: string;
  context: string;
  role: 'user' | 'assistant';
  /** Display name. */
  name: string;
  systemMessage: string;
  /** Model tier (base / smart / fast) or a model id. */
  model: string;
  /** Parsing tools: offered to the model, their calls recorded (not executed), read by conditions. */
  parsingTools: { name: string; description: string; parameters: Record<string, unknown> }[];
  /** The role may ask the user (seed 003's request_users_input tool). */
  requestUserInput: boolean;
  /** Agent tools the role may use (file and command tools, confined to its workspace). */
  tools: string[];
  /** Most tool calls in one turn before the turn is cut off. */
  maxToolSteps: number;
}

/** Branches that run at the same time, each its own agent, joined by a policy (seed 002). */
export interface ParallelPlan {
  branches: { id: string; agent: string; input: Code | null; workspace: boolean }[];
  join: 'all' | 'any' | { quorum: number };
  /** A failed branch: the join goes on with the others, or the state fails. */
  onFailure: 'continue' | 'fail';
  /** A branch that takes longer is cut off and counts as failed (null: no limit). */
  timeoutMs: number | null;
  /** Where the branches' results go in common_data (default: the state's name). */
  into: string;
}

/** Reviewers who take turns on a shared debate context until they agree (seed 002). */
export interface DebatePlan {
  reviewers: string[];
  /** What the reviewers debate (evaluated once, at the start). */
  input: Code | null;
  maxRounds: number;
  /** Writes the consensus from the debate when the rounds run out without one. */
  synthesiser: string;
  /** Where the outcome goes in common_data (default: the state's name). */
  into: string;
}

/** Code from the config, as the sandbox runs it. */
export type Code = { kind: 'expression' | 'statements'; source: string } | { kind: 'handler'; name: string } | { kind: 'template'; source: string };

/** One transition: taken when `condition` holds (in order), after running `before`. */
export interface TransitionPlan {
  target: string;
  condition: Code | null;
  before: Code | null;
}

/** One state of a workflow. */
export interface StatePlan {
  name: string;
  /** Runs first on entry (action.script, pre_handler). */
  enter: Code | null;
  agent: string | null;
  /** What the agent is sent (input expression or message template). */
  input: Code | null;
  action: 'send' | 'add' | 'clear';
  /** Runs after the agent answered (post_handler). */
  after: Code | null;
  subWorkflow: { name: string; input: Record<string, Code> } | null;
  parallel: ParallelPlan | null;
  debate: DebatePlan | null;
  transitions: TransitionPlan[];
  /** A handler that names the next state (transition_handler), instead of conditions. */
  decide: Code | null;
  /** How often a failed model call or evaluation of this state is tried again before the error handler. */
  maxRetries: number;
  /** A state with no way out ends the run (seed 000's `stop`). */
  final: boolean;
}
