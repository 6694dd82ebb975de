import type { ScopeField } from './scope-reads.js';

/**
 * The scope fields the guest keeps between a session's jobs: code never gets these objects, only what the guest
 * builds from them afresh for each part (strings, copies: `this.last_response`, the agents, the contexts' sizes,
 * tool calls), so nothing code does to them can carry over. The guest parses one only when it changed; the rest
 * of the scope (common_data, input, sub_workflow_result, last_error: objects code holds as they are) comes whole
 * with every job and is parsed afresh for every part.
 */
export const KEPT_SCOPE_FIELDS: ReadonlySet<string> = new Set<ScopeField>(['last_agent_response', 'last_response', 'last_tool_calls', 'contexts', 'context_limits', 'agents', 'roster']);

type Replacer = (key: string, value: unknown) => unknown;

/** A wire scope as the job carries it: the fields parsed afresh for every part as one JSON object, and the kept ones each as JSON by name. */
export function splitScope(scope: Record<string, unknown>, replacer: Replacer): { scope: string; kept: Record<string, string> } {
  const fresh: Record<string, unknown> = {};
  const kept: Record<string, string> = {};
  for (const name in scope) {
    const value = scope[name];
    if (value === undefined) continue;
    if (!KEPT_SCOPE_FIELDS.has(name)) fresh[name] = value;
    else if (name === 'last_tool_calls') kept[name] = JSON.stringify(callsAsText(value, replacer), replacer);
    else if (name === 'agents') kept[name] = JSON.stringify(agentsAsText(value, replacer), replacer);
    else kept[name] = JSON.stringify(value, replacer);
  }
  return { scope: JSON.stringify(fresh, replacer), kept };
}

// Tool-call arguments given as data go as their JSON text: the guest parses a call's text afresh whenever code is
// given the call (as it does the model's own text), where data kept in the guest would have to be copied each
// time. The engine's lists of calls are the same objects from job to job: each is turned into text once.
const callsText = new WeakMap<object, unknown>();

function callsAsText(calls: unknown, replacer: Replacer): unknown {
  if (!Array.isArray(calls)) return calls;
  let wired = callsText.get(calls);
  if (wired === undefined) {
    let changed = false;
    const text = calls.map((c: unknown) => {
      const args = c !== null && typeof c === 'object' ? (c as { arguments?: unknown }).arguments : undefined;
      if (args === undefined || typeof args === 'string') return c;
      changed = true;
      return { ...(c as object), arguments: JSON.stringify(args, replacer) };
    });
    wired = changed ? text : calls;
    callsText.set(calls, wired);
  }
  return wired;
}

function agentsAsText(agents: unknown, replacer: Replacer): unknown {
  if (agents === null || typeof agents !== 'object') return agents;
  const out: Record<string, unknown> = {};
  for (const [role, agent] of Object.entries(agents)) {
    const calls = agent !== null && typeof agent === 'object' ? (agent as { toolCalls?: unknown }).toolCalls : undefined;
    const wired = callsAsText(calls, replacer);
    out[role] = wired === calls ? agent : { ...(agent as object), toolCalls: wired };
  }
  return out;
}
