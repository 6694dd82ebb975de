import { pathKey } from '../../engine/chart/path.js';
import type { AgentPlan, ContextPlan, StatePlan, WorkflowPlan } from './plan.js';
import type { Scope } from '../../engine/evaluation.js';
import type { Frame, WorkflowMessage } from './state.js';
import { MAX_CONFIG_NESTING, protoKeyAt, tooDeepAt } from '../../config/config-json.js';
import { textOf } from './constants.js';
import { appendEach, KEPT_MESSAGES, textLength } from './context-length.js';
import { packedMap } from '../../engine/packed.js';

/** The plan a frame runs: the root plan, or the sub-workflow its `plan` names, one level at a time. */
export function planOf(root: WorkflowPlan, frame: Pick<Frame, 'plan'>): WorkflowPlan {
  // The root's frame, the usual case, without the walk: V8 inlines planOf into most of a state's functions (through
  // current()), and the walk and its error were compiled into each of them.
  return frame.plan.length === 0 ? root : subPlanOf(root, frame.plan);
}

function subPlanOf(root: WorkflowPlan, names: readonly string[]): WorkflowPlan {
  let plan = root;
  for (const name of names) {
    const next = plan.subWorkflows[name];
    if (!next) throw new Error(`workflow ${plan.name}: no sub-workflow ${name}`);
    plan = next;
  }
  return plan;
}

/** A state of a plan, by name. */
export function stateOf(plan: WorkflowPlan, name: string): StatePlan | undefined {
  // A loop, not find() with an arrow: no function made at each of the several calls a state makes.
  const states = plan.states;
  for (let i = 0; i < states.length; i++) if (states[i]!.name === name) return states[i];
  return undefined;
}

/** An agent of a plan, by role. */
export function agentOf(plan: WorkflowPlan, role: string): AgentPlan | undefined {
  const agents = plan.agents;
  for (let i = 0; i < agents.length; i++) if (agents[i]!.id === role) return agents[i];
  return undefined;
}

/** A context of a plan, by name. */
export function contextOf(plan: WorkflowPlan, name: string): ContextPlan | undefined {
  const contexts = plan.contexts;
  for (let i = 0; i < contexts.length; i++) if (contexts[i]!.name === name) return contexts[i];
  return undefined;
}

/** A fresh frame for a plan: its variables and input in common_data, its contexts at their starting messages. */
export function newFrame(plan: WorkflowPlan, path: { plan: string[]; prefix: string[] }, input: unknown, text?: string): Frame {
  const contexts: Record<string, WorkflowMessage[]> = {};
  for (const c of plan.contexts) contexts[c.name] = packedMap(c.starting, (m) => ({ role: m.role, content: m.content }));
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
    // Plans stored before (their journals fold as they ran) read this.input from common_data.
    ...(plan.seedContexts ? { workflowInput: { text: text ?? textOf(input), value: input } } : {}),
  };
}

/** Whether a workflow may start without input: its input has a default, or is not required (seed 001). */
export function inputOptional(plan: WorkflowPlan): boolean {
  return plan.input.default !== undefined || plan.input.required === false;
}

/** A workflow's input from the text it was given: its default when none is given; JSON when the workflow declares a non-string input and the text is JSON. */
export function inputValue(plan: WorkflowPlan, text: string): unknown {
  if (text.trim() === '' && plan.input.default !== undefined) return structuredClone(plan.input.default);
  if (plan.input.type === undefined || plan.input.type === 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Why a workflow cannot take this input (JSON nesting deeper than any workflow data may, or a `__proto__` key), or null when it can. */
export function inputProblem(plan: WorkflowPlan, text: string): string | null {
  const value = inputValue(plan, text);
  const deep = tooDeepAt(value);
  if (deep !== null) return `the input of workflow ${plan.name} nests deeper than ${MAX_CONFIG_NESTING} levels of objects and arrays${deep ? ` (at ${deep})` : ''}: give it flatter JSON`;
  // The sandbox refuses such data when a state keeps it: refused here, before a session starts, in one line.
  const proto = protoKeyAt(value);
  if (proto !== null) return `the input of workflow ${plan.name} has a key "__proto__"${proto ? ` (in ${proto})` : ''}, which workflow data may not have: rename it`;
  return null;
}

/**
 * Trims messages to `max_length` characters as seed 000's reference does (and SynthDev): past the limit,
 * the system messages move to the front and the oldest others go, while more than 10 others remain.
 */
export function trimMessages<M extends { role: string; content: string }>(messages: M[], maxLength: number): M[] {
  let length = textLength(messages);
  if (length <= maxLength) return messages;
  const system = messages.filter((m) => m.role === 'system');
  const others = messages.filter((m) => m.role !== 'system');
  let first = 0;
  while (length > maxLength && others.length - first > KEPT_MESSAGES) length -= others[first++]!.content.length;
  return [...system, ...others.slice(first)];
}

/**
 * How runs stored before troupe followed seed 000's trimming trim (so their journals fold as they ran):
 * the oldest messages after the starting ones go first; the starting ones and the newest always stay.
 */
function legacyTrim(messages: WorkflowMessage[], context: ContextPlan): WorkflowMessage[] {
  const kept = context.starting.length;
  let length = messages.reduce((n, m) => n + m.content.length, 0);
  while (length > context.maxLength && messages.length > kept + 1) {
    length -= messages[kept]!.content.length;
    messages = [...messages.slice(0, kept), ...messages.slice(kept + 1)];
  }
  return messages;
}

/** Appends a message to a context, trimmed to its `max_length` (see trimMessages; `legacy`: a run stored before, trimmed as it ran). */
export function appendMessage(frame: Frame, context: ContextPlan, message: WorkflowMessage, legacy = false): Frame {
  const before = frame.contexts[context.name] ?? [];
  const messages = legacy ? legacyTrim([...before, message], context) : appendEach(before, [message], context.maxLength);
  return { ...frame, contexts: { ...frame.contexts, [context.name]: messages } };
}

/** The workflow's input as `this.input` reads it: its name, the text given and its value. */
export function workflowInputOf(frame: Frame, plan: WorkflowPlan): NonNullable<Scope['workflow_input']> {
  const given = frame.workflowInput ?? { text: textOf(frame.common_data[plan.input.name]), value: frame.common_data[plan.input.name] };
  return { name: plan.input.name, ...given };
}

type AgentRecord = Frame['agents'][string];
type ScopeAgent = Scope['agents'][string];

// What a scope holds of the plan (the contexts' limits, the roster) and of each agent's answer, built once
// for each: a scope is read, never changed, so evaluations share them.
const planParts = new WeakMap<WorkflowPlan, Pick<Scope, 'context_limits' | 'roster'>>();
const agentParts = new WeakMap<AgentRecord, ScopeAgent>();
// The scope's agents of a frame's agents object (replaced, never changed, when an agent answers): made once for
// each, not at every evaluation (two a state in a handler workflow, with the same agents).
const agentsParts = new WeakMap<Frame['agents'], Scope['agents']>();

function partsOf(plan: WorkflowPlan): Pick<Scope, 'context_limits' | 'roster'> {
  let parts = planParts.get(plan);
  if (!parts) {
    parts = {
      context_limits: Object.fromEntries(plan.contexts.map((c) => [c.name, c.maxLength])),
      roster: Object.fromEntries(plan.agents.map((a) => [a.id, { context: a.context, role: a.role }])),
    };
    planParts.set(plan, parts);
  }
  return parts;
}

function agentOfScope(v: AgentRecord): ScopeAgent {
  let seen = agentParts.get(v);
  if (!seen) {
    seen = { response: v.response, toolCalls: toolCallsOf(v.toolCalls), ...(v.raw ? { raw: v.raw } : {}) };
    agentParts.set(v, seen);
  }
  return seen;
}

function agentsOfScope(agents: Frame['agents']): Scope['agents'] {
  let seen = agentsParts.get(agents);
  if (!seen) {
    seen = Object.fromEntries(Object.entries(agents).map(([k, v]) => [k, agentOfScope(v)]));
    agentsParts.set(agents, seen);
  }
  return seen;
}

function toolCallsOf(calls: AgentRecord['toolCalls']): Scope['last_tool_calls'] {
  return packedMap(calls, (c) => ({ name: c.name, arguments: c.arguments }));
}

/** What the sandbox sees of a frame (and of its plan: the agents, the contexts' limits, the input's name). Its parts are shared: read it, never change it. */
export function scopeOf(frame: Frame, plan: WorkflowPlan, legacy = false): Scope {
  const last = frame.lastAgent ? frame.agents[frame.lastAgent] : undefined;
  const { context_limits, roster } = partsOf(plan);
  // One shape for every scope (a field it does not have is undefined, which no reader tells from absent and the
  // wire leaves out): spreads made scopeOf, and what reads scopes, see several.
  return {
    common_data: frame.common_data,
    input: frame.input,
    workflow_input: workflowInputOf(frame, plan),
    contexts: frame.contexts,
    // A run stored before trims in the engine only (code's messages are appended there).
    context_limits: legacy ? undefined : context_limits,
    agents: agentsOfScope(frame.agents),
    roster,
    last_agent_response: last?.response ?? null,
    last_response: last?.raw ?? null,
    last_tool_calls: last ? agentOfScope(last).toolCalls : [],
    sub_workflow_result: frame.subWorkflowResult,
  };
}

/** The chart key of a frame's state. */
export function keyOf(frame: Pick<Frame, 'prefix'>, state: string): string {
  return pathKey([...frame.prefix, state]);
}
