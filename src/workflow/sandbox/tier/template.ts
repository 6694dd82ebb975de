import type { TemplatePart } from '../template.js';
import { show } from './data.js';
import type { LogSink } from './globals.js';
import type { TierSelf } from './self.js';
import { bail, isPlainObject, isStringObject, TIER_LIMITS, textOf } from './values.js';

// The scope names a placeholder may start with (the guest's template module).
const SCOPE = new Set(['input', 'last_agent_response', 'last_tool_calls', 'sub_workflow_result', 'last_error', 'contexts', 'agents']);

/** A message template rendered as the guest renders it: placeholders from common_data and the scope, a missing one logged and left empty. */
export function renderTemplate(parts: TemplatePart[], self: TierSelf, logs: LogSink): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') out += part;
    else {
      const v = resolve(part.path, self);
      if (v === undefined || v === null) logs.write('', [`template: ${part.raw} is not set; rendered as empty`]);
      else out += typeof v === 'string' ? v : show(v);
    }
    if (out.length > TIER_LIMITS.stringChars) bail('string over the cap');
  }
  return out;
}

// {input.x} is the workflow's input x (common_data by name first), {input} its text; {x} is common_data.x, else a scope name.
function resolve(path: string[], self: TierSelf): unknown {
  const [head, ...rest] = path as [string, ...string[]];
  const cd = self.get('common_data');
  const wi = head === 'input' ? self.get('input') : undefined;
  if (head === 'input' && isStringObject(wi)) {
    if (rest.length === 0) return textOf(wi);
    const w = dig(cd, rest);
    if (w !== undefined) return w;
    const named: Record<string, unknown> = {};
    for (const k of Object.keys(wi)) if (!/^[0-9]+$/.test(k)) named[k] = (wi as unknown as Record<string, unknown>)[k];
    return dig(named, rest);
  }
  if (head === 'input' && rest.length > 0) {
    const v = dig(cd, rest);
    return v !== undefined ? v : dig(wi, rest);
  }
  if (head === 'common_data' || head === 'variables') return dig(cd, rest);
  if (head !== 'input' && own(cd, head)) return dig(cd, path);
  return SCOPE.has(head) ? dig(self.get(head), rest) : undefined;
}

function own(o: unknown, k: string): boolean {
  if (o === null || typeof o !== 'object') return false;
  // A guest object (contexts, agents) read by a placeholder: the sandbox's to render.
  if (!Array.isArray(o) && !isPlainObject(o) && !isStringObject(o)) return bail('a placeholder into a guest object');
  return Object.hasOwn(o, k);
}

function dig(v: unknown, path: string[]): unknown {
  for (const k of path) {
    if (!own(v, k)) return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}
