import type { ScopeField } from './scope-reads.js';

/**
 * The scope fields the guest keeps between a session's jobs: code never gets these objects, only what the guest
 * builds from them afresh for each part (strings, copies: `this.last_response`, the agents, the contexts' sizes,
 * tool calls), so nothing code does to them can carry over. The guest parses one only when it changed; the rest
 * of the scope (common_data, input, sub_workflow_result, last_error: objects code holds as they are) comes whole
 * with every job and is parsed afresh for every part.
 */
export const KEPT_SCOPE_FIELDS: ReadonlySet<string> = new Set<ScopeField>(['last_agent_response', 'last_response', 'last_tool_calls', 'contexts', 'context_limits', 'agents', 'roster']);

/** A wire scope as the job carries it: the fields parsed afresh for every part as one JSON object, and the kept ones each as JSON by name. */
export function splitScope(scope: Record<string, unknown>, replacer: (key: string, value: unknown) => unknown): { scope: string; kept: Record<string, string> } {
  const fresh: Record<string, unknown> = {};
  const kept: Record<string, string> = {};
  for (const name in scope) {
    const value = scope[name];
    if (value === undefined) continue;
    if (KEPT_SCOPE_FIELDS.has(name)) kept[name] = JSON.stringify(value, replacer);
    else fresh[name] = value;
  }
  return { scope: JSON.stringify(fresh, replacer), kept };
}
