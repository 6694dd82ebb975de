import { ConfigError, formatIssue } from '../config/issues.js';
import type { ChatModel } from '../llm/chat-model.js';
import { DemoModel } from '../llm/demo-model.js';
import { MemoryStore } from '../store/memory-store.js';
import type { Store } from '../store/store.js';
import { openTeam } from '../team/open-team.js';
import { teamDir } from '../package-root.js';
import { loadWorkflow, type WorkflowLoadOptions } from '../workflow/load/load-workflow.js';
import { inputOptional, inputProblem } from '../workflow/run/frames.js';
import type { WorkflowPlan } from '../workflow/run/plan.js';
import { UserError } from '../errors.js';
import { openSession } from './open-session.js';

/** Where a workflow is looked for and what it may use (all optional: the working directory, its roles, the shipped team). */
export interface WorkflowApiOptions {
  /** The directory names and relative paths resolve against (default: process.cwd()). */
  cwd?: string;
  /** A roles folder (SynthDev's config/roles) or roles file read first. */
  roles?: string;
  /** Environment (TROUPE_WORKFLOWS, TROUPE_ROLES, tier models; default: process.env). */
  env?: Record<string, string | undefined>;
}

/** What `troupe validate` would say of a workflow: valid, or every problem as `file: field: problem — fix`. */
export interface WorkflowValidation {
  valid: boolean;
  problems: string[];
  plan: WorkflowPlan | null;
}

/** A finished run, in the shape of SynthDev's executeWorkflow result (and seed 001's tests). */
export interface WorkflowRunResult {
  success: boolean;
  workflow_name: string;
  /** The workflow's output: its output variable (or its stop state's input) when the run ended. */
  output: unknown;
  common_data: Record<string, unknown>;
  /** The states entered, in order. */
  states_visited: string[];
  /** Why the run ended (or why it is waiting, when it did not end). */
  end_reason: string;
  error?: string;
  session_id: string;
}

function loadOptions(options: WorkflowApiOptions): WorkflowLoadOptions {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  return { cwd, env, team: openTeam(teamDir(), {}, env).loaded, ...(options.roles !== undefined ? { roles: options.roles } : {}) };
}

/** Checks a workflow (a name, a .json file, `file.json#name` or a folder) with its roles, script.js and sub-workflows. */
export function validateWorkflow(wanted: string, options: WorkflowApiOptions = {}): WorkflowValidation {
  const result = loadWorkflow(wanted, loadOptions(options));
  return { valid: result.plan !== null, problems: result.issues.map(formatIssue), plan: result.plan };
}

/** Loads a workflow, or throws a ConfigError naming every problem. */
export function loadWorkflowPlan(wanted: string, options: WorkflowApiOptions = {}): WorkflowPlan {
  const result = loadWorkflow(wanted, loadOptions(options));
  if (!result.plan) throw new ConfigError(result.issues);
  return result.plan;
}

/** How a run goes: the input (text, or a value given as JSON text), the model (default: the offline demo model), where it is stored. */
export interface RunWorkflowOptions extends WorkflowApiOptions {
  /** The input: text, a value (sent as JSON), or seed 001's `{ <input name>: value }`. */
  input?: unknown;
  model?: ChatModel;
  store?: Store;
}

/** The input as the text a workflow run starts from. */
function inputText(plan: WorkflowPlan, input: unknown): string {
  if (input === undefined || input === null) return '';
  // Seed 001 passes the input parameters by name: executeWorkflow({ user_request: 'Test input' }).
  const named = typeof input === 'object' && !Array.isArray(input) && Object.keys(input).length === 1 && plan.input.name in input ? (input as Record<string, unknown>)[plan.input.name] : input;
  return typeof named === 'string' ? named : JSON.stringify(named);
}

/**
 * Runs a workflow to its end (or until it waits for a user, who is not there) and answers in SynthDev's
 * result shape. Every model call goes to `model`; the session is kept in `store` (default: memory only).
 */
export async function runWorkflow(workflow: string | WorkflowPlan, options: RunWorkflowOptions = {}): Promise<WorkflowRunResult> {
  const plan = typeof workflow === 'string' ? loadWorkflowPlan(workflow, options) : workflow;
  const brief = inputText(plan, options.input);
  if (brief === '' && !inputOptional(plan)) throw new UserError(`workflow ${plan.name} needs an input (${plan.input.name})`);
  const problem = inputProblem(plan, brief);
  if (problem) throw new UserError(problem);
  const env = options.env ?? process.env;
  const session = await openSession({ workflow: plan, model: options.model ?? new DemoModel(), store: options.store ?? new MemoryStore(), brief, env });
  const visited: string[] = [];
  let ended: { reason: string; output?: unknown } | null = null;
  session.subscribe((e) => {
    if (e.type === 'state_entered') visited.push(String(e.path).split('.').pop()!);
    if (e.type === 'session_ended') ended = { reason: e.reason, ...('output' in e ? { output: e.output } : {}) };
  });
  session.start(brief);
  await session.settled();
  const state = session.getSnapshot();
  const frame = state.workflow?.frames[0];
  const waiting = state.awaiting?.reason;
  await session.stop({ reason: ended ? 'ended' : 'awaiting_user' });
  const done = ended as { reason: string; output?: unknown } | null;
  const success = done !== null && !state.workflow?.error && /complete/.test(done.reason);
  return {
    success,
    workflow_name: plan.name,
    output: done?.output ?? state.workflow?.output,
    common_data: frame?.common_data ?? {},
    states_visited: visited,
    end_reason: done?.reason ?? waiting ?? 'not finished',
    ...(success ? {} : { error: state.workflow?.error ?? waiting ?? done?.reason ?? 'the run did not finish' }),
    session_id: state.id,
  };
}

/**
 * SynthDev's WorkflowStateMachine, for code written against it (seed 001's tests): `loadWorkflow(path)`,
 * then `executeWorkflow(name, input)` (or `executeWorkflow(input)` for the one loaded last).
 */
export class WorkflowStateMachine {
  private readonly workflows = new Map<string, WorkflowPlan>();
  private last: string | null = null;

  constructor(private readonly options: RunWorkflowOptions = {}) {}

  /** Loads a workflow (a path or a name) and keeps it by its workflow_name; returns the plan. */
  async loadWorkflow(wanted: string): Promise<WorkflowPlan> {
    const plan = loadWorkflowPlan(wanted, this.options);
    this.workflows.set(plan.name, plan);
    this.last = plan.name;
    return plan;
  }

  /** The names of the loaded workflows. */
  getAvailableWorkflows(): string[] {
    return [...this.workflows.keys()];
  }

  /** Runs a loaded workflow by name with an input, or the one loaded last with the input alone. */
  async executeWorkflow(nameOrInput: unknown, input?: unknown): Promise<WorkflowRunResult> {
    const named = typeof nameOrInput === 'string' && this.workflows.has(nameOrInput);
    const name = named ? (nameOrInput as string) : this.last;
    const plan = name !== null ? this.workflows.get(name) : undefined;
    if (!plan) throw new UserError(`no workflow loaded${typeof nameOrInput === 'string' ? ` named "${nameOrInput}"` : ''}: call loadWorkflow(path) first`);
    return runWorkflow(plan, { ...this.options, input: named ? input : nameOrInput });
  }
}
