import type { EvaluationResult } from '../../engine/evaluation.js';

const ROLES = new Set(['system', 'user', 'assistant']);
const SUCCEEDED_KEYS = new Set(['ok', 'value', 'common_data', 'logs', 'contexts', 'appended', 'next']);

/**
 * The sandbox's answer (parsed JSON) as an EvaluationResult, or null when it is not one: what
 * EvaluationResultSchema.safeParse decides and gives (unknown keys dropped), checked by hand, since it runs
 * on every evaluation and the schema costs several times the JSON.parse before it.
 */
export function evaluationResultOf(value: unknown): EvaluationResult | null {
  if (!isRecord(value)) return null;
  if (value.ok === false) return typeof value.error === 'string' ? (Object.keys(value).length === 2 ? (value as EvaluationResult) : { ok: false, error: value.error }) : null;
  if (value.ok !== true || !isRecord(value.common_data)) return null;
  const { logs, contexts, appended, next } = value;
  if (logs !== undefined && !(Array.isArray(logs) && logs.every((line) => typeof line === 'string'))) return null;
  const lists = contexts === undefined ? undefined : contextsOf(contexts);
  if (lists === null) return null;
  const added = appended === undefined ? undefined : contextsOf(appended);
  if (added === null) return null;
  const chained = next === undefined ? undefined : evaluationResultOf(next);
  if (chained === null) return null;
  if (chained === next && lists === contexts && added === appended && Object.keys(value).every((k) => SUCCEEDED_KEYS.has(k))) return value as EvaluationResult;
  const out: Record<string, unknown> = { ok: true };
  if (Object.hasOwn(value, 'value')) out.value = value.value;
  out.common_data = value.common_data;
  if (logs !== undefined) out.logs = logs;
  if (lists !== undefined) out.contexts = lists;
  if (added !== undefined) out.appended = added;
  if (chained !== undefined) out.next = chained;
  return out as EvaluationResult;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Each context's messages as { role, content } (the same object when nothing else is in it), or null.
function contextsOf(contexts: unknown): Record<string, unknown> | null {
  if (!isRecord(contexts)) return null;
  let out = contexts;
  for (const [name, messages] of Object.entries(contexts)) {
    if (!Array.isArray(messages) || !messages.every((m) => isRecord(m) && typeof m.content === 'string' && typeof m.role === 'string' && ROLES.has(m.role))) return null;
    if (messages.every((m) => Object.keys(m).length === 2)) continue;
    if (out === contexts) out = { ...contexts };
    out[name] = messages.map((m: { role: string; content: string }) => ({ role: m.role, content: m.content }));
  }
  return out;
}
