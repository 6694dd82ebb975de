import { resolve } from 'node:path';
import type { StateConfig, WorkflowConfig } from '../config/workflow-schema.js';
import type { AgentPlan, StatePlan, TransitionPlan, WorkflowPlan } from '../run/plan.js';
import { expression, handlerOrStatements, isName, statements, template } from './code.js';

const ACTIONS = { sendUserMessage: 'send', addUserMessage: 'add', clearConversation: 'clear' } as const;

/** Where a failed state goes: a state name, or a handler (a script.js function or code) naming one. */
function errorRoute(field: string | undefined, states: ReadonlySet<string>): StatePlan['onError'] {
  if (field === undefined) return null;
  if (states.has(field.trim())) return { state: field.trim() };
  return { code: handlerOrStatements(field) };
}

function transitionsOf(s: StateConfig): TransitionPlan[] {
  if (s.next_state !== undefined) return [{ target: s.next_state, condition: null, before: null }];
  return (s.transition ?? []).map((t) => ({
    target: t.target,
    condition: t.condition.trim() === 'true' ? null : expression(t.condition),
    before: t.before !== undefined ? statements(t.before) : null,
  }));
}

/**
 * SynthDev's handler state: an agent and handlers (pre / post / transition, any of them, even null) and
 * nothing sent: no input or message, no action, no transitions. Its handlers own the context: the agent's
 * call uses the context as it is, and its answer is not added to it.
 */
export function isHandlerState(s: StateConfig): boolean {
  const handlers = 'pre_handler' in s || 'post_handler' in s || 'transition_handler' in s;
  return handlers && s.agent !== undefined && s.input === undefined && s.message === undefined && s.action === undefined && s.transition === undefined && s.next_state === undefined;
}

/** SynthDev's output: a `stop` state's `input`, a common_data path (its value) or a text (itself), when it is set. */
function outputOf(s: StateConfig): StatePlan['output'] {
  const input = s.input?.trim();
  if (!input || s.agent !== undefined) return undefined;
  const path = /^common_data((?:\.[A-Za-z_$][\w$]*)+)$/.exec(input);
  return path ? { path: path[1]!.slice(1).split('.') } : { text: input };
}

/** One state of a workflow file, in the one shape the engine runs (seed 000's and seed 001's variants alike). */
export function normaliseState(s: StateConfig, config: WorkflowConfig, states: ReadonlySet<string>): StatePlan {
  const pre = s.pre_handler ?? undefined;
  const post = s.post_handler ?? undefined;
  const transitionHandler = s.transition_handler ?? undefined;
  const enter = s.action?.script !== undefined ? statements(s.action.script) : pre !== undefined ? handlerOrStatements(pre) : null;
  const input = s.message !== undefined ? template(s.message) : s.input !== undefined ? expression(s.input) : null;
  const parallel = s.parallel
    ? {
        branches: s.parallel.branches.map((b) => ({
          id: b.id,
          agent: b.agent,
          input: b.input !== undefined ? expression(b.input) : input,
          workspace: b.workspace,
          when: b.when !== undefined ? expression(b.when) : null,
        })),
        join: s.parallel.join,
        onFailure: s.parallel.on_failure,
        timeoutMs: s.parallel.timeout_ms ?? null,
        into: s.parallel.into ?? s.name,
      }
    : null;
  const debate = s.debate
    ? {
        reviewers: s.debate.reviewers,
        input: s.debate.input !== undefined ? expression(s.debate.input) : input,
        implementations: s.debate.implementations ?? null,
        maxRounds: s.debate.max_rounds,
        synthesiser: s.debate.synthesiser ?? s.debate.reviewers[0]!,
        into: s.debate.into ?? s.name,
      }
    : null;
  const subWorkflow = s.action?.sub_workflow ? { name: s.action.sub_workflow, input: Object.fromEntries(Object.entries(s.action.sub_workflow_input ?? {}).map(([k, v]) => [k, expression(v)])) } : null;
  const transitions = transitionsOf(s);
  const decide = transitionHandler !== undefined ? handlerOrStatements(transitionHandler) : null;
  const agent = s.agent ?? null;
  const final = !agent && !parallel && !debate && !subWorkflow && !enter && transitions.length === 0 && !decide;
  const output = final ? outputOf(s) : undefined;
  return {
    name: s.name,
    enter,
    agent,
    input: agent ? input : null,
    action: ACTIONS[s.action?.function ?? 'sendUserMessage'],
    after: post !== undefined ? handlerOrStatements(post) : null,
    subWorkflow,
    parallel,
    debate,
    transitions,
    decide,
    maxRetries: s.max_retries ?? config.max_retries,
    // Seed 000's `stop`: a state with nothing to do and nowhere to go ends the run.
    final,
    ...(output ? { output } : {}),
    ...(isHandlerState(s) ? { owned: true } : {}),
    onError: errorRoute(s.error_handler ?? undefined, states),
  };
}

/** A validated workflow file as the engine runs it, with its agents resolved and its sub-workflows loaded. */
export function normaliseWorkflow(
  config: WorkflowConfig,
  parts: { agents: AgentPlan[]; subWorkflows: Record<string, WorkflowPlan>; script: string | null; source: string; cwd: string },
): WorkflowPlan {
  const names = new Set(config.states.map((s) => s.name));
  const handler = config.error_handler?.trim();
  return {
    name: config.workflow_name,
    description: config.description,
    input: {
      name: config.input.name,
      ...(config.input.type ? { type: config.input.type } : {}),
      ...(config.input.description ? { description: config.input.description } : {}),
      ...(config.input.required !== undefined ? { required: config.input.required } : {}),
      ...(config.input.default !== undefined ? { default: config.input.default } : {}),
    },
    output: { name: config.output.name, ...(config.output.type ? { type: config.output.type } : {}) },
    variables: config.variables,
    contexts: config.contexts.map((c) => ({ name: c.name, starting: c.starting_messages, maxLength: c.max_length })),
    agents: parts.agents,
    states: config.states.map((s) => normaliseState(s, config, names)),
    start: names.has('start') ? 'start' : config.states[0]!.name,
    resume: names.has('resume') ? 'resume' : null,
    errorHandler: handler && names.has(handler) ? handler : null,
    errorDecider: handler && !names.has(handler) ? (isName(handler) ? { kind: 'handler', name: handler } : statements(handler)) : null,
    ...(config.max_turns !== undefined ? { maxTurns: config.max_turns } : {}),
    ...(config.max_state_entries !== undefined ? { maxStateEntries: config.max_state_entries } : {}),
    ...(config.warming !== undefined ? { warming: config.warming } : {}),
    script: parts.script,
    ...(config.workspace ? { workspace: { from: config.workspace.from !== undefined ? resolve(parts.cwd, config.workspace.from) : null, git: config.workspace.git } } : {}),
    subWorkflows: parts.subWorkflows,
    source: parts.source,
    seedContexts: true,
  };
}
