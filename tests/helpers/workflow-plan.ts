import type { WarmingSettings } from '../../src/config/team-schema.js';
import type { AgentPlan, StatePlan, WorkflowPlan } from '../../src/workflow/run/plan.js';

/** A workflow expression piece (code the sandbox, or the host, evaluates). */
export const expr = (source: string) => ({ kind: 'expression' as const, source });

/** A workflow statements piece (code run for its effect on `this`). */
export const stmts = (source: string) => ({ kind: 'statements' as const, source });

/** A compiled workflow with every field but its name, states and start at its default (no data, contexts, agents or script), overridden by `p`. */
export const workflowPlan = (p: Partial<WorkflowPlan> & Pick<WorkflowPlan, 'name' | 'states' | 'start'>): WorkflowPlan => ({
  description: '',
  input: { name: 'input' },
  output: { name: 'output' },
  variables: {},
  contexts: [],
  agents: [],
  resume: null,
  errorHandler: null,
  script: null,
  subWorkflows: {},
  source: 'test',
  ...p,
});

/** A compiled workflow state with every field at its default, overridden by `s`. */
export const state = (s: Partial<StatePlan> & { name: string }): StatePlan => ({
  enter: null,
  agent: null,
  input: null,
  action: 'send',
  after: null,
  subWorkflow: null,
  parallel: null,
  debate: null,
  transitions: [],
  decide: null,
  maxRetries: 0,
  final: false,
  ...s,
});

/** Seed 000's coder_reviewer data, contexts and agents as the loader normalises them (a coder, and a reviewer with review_work); the tests give its states. */
export const CODER_REVIEWER_PARTS = {
  input: { name: 'task_to_do' },
  output: { name: 'work_summary' },
  variables: { max_iterations: 10 },
  contexts: [{ name: 'code_history', starting: [], maxLength: 50_000 }],
  agents: [
    { id: 'coder', context: 'code_history', role: 'assistant', name: 'Coder', systemMessage: 'You code.', model: 'base', parsingTools: [], requestUserInput: false, tools: [], maxToolSteps: 20 },
    {
      id: 'reviewer',
      context: 'code_history',
      role: 'user',
      name: 'Reviewer',
      systemMessage: 'You review.',
      model: 'base',
      parsingTools: [{ name: 'review_work', description: '', parameters: {} }],
      requestUserInput: false,
      tools: [],
      maxToolSteps: 20,
    },
  ],
} satisfies Partial<WorkflowPlan>;

/** What differs between the tests' and the bench's coder/reviewer loops. */
export interface CoderReviewerOptions {
  name: string;
  source: string;
  /** The coder's and the reviewer's system messages. */
  systemMessages: { coder: string; reviewer: string };
  maxLength: number;
  /** The reviewer's verdict tool; forced when `forced`. */
  reviewTool: AgentPlan['parsingTools'][number];
  forced?: boolean;
  /** Words before the task in the coder's first input ("Do:"). */
  taskPrefix: string;
  /** What the reviewer's input says, and what an approved run leaves as its summary (no single quotes). */
  reviewInput: string;
  summary: string;
  maxTurns?: number;
  warming?: WarmingSettings;
}

/** Seed 000's coder_reviewer, as the loader normalises it: code → review, back to code while improvement_needed. */
export function coderReviewerPlan(o: CoderReviewerOptions): WorkflowPlan {
  const agent = (id: 'coder' | 'reviewer', role: 'assistant' | 'user', name: string, parsingTools: AgentPlan['parsingTools']): AgentPlan => ({
    id,
    context: 'code_history',
    role,
    name,
    systemMessage: o.systemMessages[id],
    model: 'base',
    parsingTools,
    ...(id === 'reviewer' && o.forced ? { forcedTool: o.reviewTool.name } : {}),
    requestUserInput: false,
    tools: [],
    maxToolSteps: 20,
  });
  return {
    name: o.name,
    description: '',
    input: { name: 'task_to_do' },
    output: { name: 'work_summary' },
    variables: {},
    contexts: [{ name: 'code_history', starting: [], maxLength: o.maxLength }],
    agents: [agent('coder', 'assistant', 'Coder', []), agent('reviewer', 'user', 'Reviewer', [o.reviewTool])],
    states: [
      state({
        name: 'start',
        enter: stmts(`this.common_data.current_task = '${o.taskPrefix} ' + this.common_data.task_to_do;`),
        transitions: [{ target: 'code', condition: expr('true'), before: null }],
      }),
      state({ name: 'code', agent: 'coder', input: expr('common_data.current_task'), transitions: [{ target: 'review', condition: expr('true'), before: null }] }),
      state({
        name: 'review',
        agent: 'reviewer',
        input: expr(`'${o.reviewInput}'`),
        transitions: [
          {
            target: 'code',
            condition: expr('function.review_work.arguments.improvement_needed === true'),
            before: stmts('this.common_data.current_task = function.review_work.arguments.continue_message;'),
          },
          { target: 'stop', condition: expr('true'), before: stmts(`this.common_data.work_summary = '${o.summary}';`) },
        ],
      }),
      state({ name: 'stop', final: true }),
    ],
    start: 'start',
    resume: null,
    errorHandler: null,
    script: null,
    subWorkflows: {},
    source: o.source,
    ...(o.maxTurns !== undefined ? { maxTurns: o.maxTurns } : {}),
    ...(o.warming ? { warming: o.warming } : {}),
  };
}
