import { pathKey } from '../../engine/chart/path.js';
import type { AgentPlan, ContextPlan, StatePlan, WorkflowPlan } from './plan.js';
import type { Scope } from '../../engine/evaluation.js';
import type { Frame, WorkflowMessage } from './state.js';
import { MAX_CONFIG_NESTING, tooDeepAt } from '../../config/config-json.js';

/** The plan a frame runs: the root plan, or the sub-workflow its `plan` names, one level at a time. */
export function planOf(root: WorkflowPlan, frame: Pick<Frame, 'plan'>): WorkflowPlan {
  let plan = root;
  for (const name of frame.plan) {
    const next = plan.subWorkflows[name];
    if (!next) throw new Error(`workflow ${plan.name}: no sub-workflow ${name}`);
    plan = next;
  }
  return plan;
}

/** A state of a plan, by name. */
export function stateOf(plan: WorkflowPlan, name: string): StatePlan | undefined {
  return plan.states.find((s) => s.name === name);
}

/** An agent of a plan, by role. */
export function agentOf(plan: WorkflowPlan, role: string): AgentPlan | undefined {
  return plan.agents.find((a) => a.id === role);
}

/** A fresh frame for a plan: its variables and input in common_data, its contexts at their starting messages. */
export function newFrame(plan: WorkflowPlan, path: { plan: string[]; prefix: string[] }, input: unknown): Frame {
  const contexts: Record<string, WorkflowMessage[]> = {};
  for (const c of plan.contexts) contexts[c.name] = c.starting.map((m) => ({ role: m.role, content: m.content }));
  return {
    plan: path.plan,
    prefix: path.prefix,
    state: plan.start,
    phase: 'enter',
    common_data: { ...structuredClone(plan.variables), [plan.input.name]: input },
    contexts,
    agents: {},
    lastAgent: null,
    input: null,
    retries: 0,
  };
}

/** A workflow's input from the text it was given: JSON when the workflow declares a non-string input and the text is JSON. */
export function inputValue(plan: WorkflowPlan, text: string): unknown {
  if (plan.input.type === undefined || plan.input.type === 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Why a workflow cannot take this input (JSON nesting deeper than any workflow data may), or null when it can. */
export function inputProblem(plan: WorkflowPlan, text: string): string | null {
  const deep = tooDeepAt(inputValue(plan, text));
  if (deep === null) return null;
  return `the input of workflow ${plan.name} nests deeper than ${MAX_CONFIG_NESTING} levels of objects and arrays${deep ? ` (at ${deep})` : ''}: give it flatter JSON`;
}

/**
 * Appends a message to a context and trims it to `max_length` characters: the oldest messages after
 * the starting ones go first, the starting messages and the newest message always stay.
 */
export function appendMessage(frame: Frame, context: ContextPlan, message: WorkflowMessage): Frame {
  const kept = context.starting.length;
  let messages = [...(frame.contexts[context.name] ?? []), message];
  let length = messages.reduce((n, m) => n + m.content.length, 0);
  while (length > context.maxLength && messages.length > kept + 1) {
    length -= messages[kept]!.content.length;
    messages = [...messages.slice(0, kept), ...messages.slice(kept + 1)];
  }
  return { ...frame, contexts: { ...frame.contexts, [context.name]: messages } };
}

/** What the sandbox sees of a frame. */
export function scopeOf(frame: Frame): Scope {
  const last = frame.lastAgent ? frame.agents[frame.lastAgent] : undefined;
  return {
    common_data: frame.common_data,
    input: frame.input,
    contexts: frame.contexts,
    agents: Object.fromEntries(Object.entries(frame.agents).map(([k, v]) => [k, { response: v.response, toolCalls: v.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })) }])),
    last_agent_response: last?.response ?? null,
    last_tool_calls: (last?.toolCalls ?? []).map((c) => ({ name: c.name, arguments: c.arguments })),
    ...(frame.subWorkflowResult !== undefined ? { sub_workflow_result: frame.subWorkflowResult } : {}),
  };
}

/** The chart key of a frame's state. */
export function keyOf(frame: Pick<Frame, 'prefix'>, state: string): string {
  return pathKey([...frame.prefix, state]);
}
