import type { Node } from 'acorn';
import { loadScriptModule } from '../script-module.js';
import type { Interpreter } from './interpret.js';
import { parseBody } from './parse.js';
import type { TierSelf } from './self.js';
import { bail, Env, isPlainObject, TierFunction } from './values.js';

/** script.js as the tier runs it: its body (loadScriptModule's source) parsed, and its top-level names. */
export interface TierScript {
  program: Node & { body: (Node & Record<string, unknown>)[] };
  names: string[];
}

const cache = new Map<string, TierScript | null>();

/** script.js made ready for the tier, once per text; null when the tier does not run it (the sandbox does). */
export function tierScript(source: string): TierScript | null {
  let found = cache.get(source);
  if (found !== undefined) return found;
  found = build(source);
  if (cache.size >= 100) cache.clear();
  cache.set(source, found);
  return found;
}

function build(source: string): TierScript | null {
  const module = loadScriptModule(source);
  if (!module.ok) return null;
  const program = parseBody(module.source, true);
  if (typeof program === 'string') return null;
  const body = (program as TierScript['program']).body;
  // A top-level return would cut off the table of names the guest appends.
  if (body.some((s) => s.type === 'ReturnStatement')) return null;
  return { program: program as TierScript['program'], names: module.names };
}

/**
 * Runs script.js's top level for a part (as the guest does, afresh, with the part's scope names as its
 * parameters) and puts its functions on `self`: its top-level functions, then the default export's methods.
 */
export function loadScript(script: TierScript, self: TierSelf, running: Interpreter): void {
  const env = parametersEnv(self);
  running.block(script.program.body, env, self);
  const functions: Record<string, TierFunction> = {};
  const table = (name: string): unknown => {
    const slot = env.vars.get(name);
    if (slot && !slot.ready) bail('a script.js name read before its declaration');
    return slot?.value;
  };
  for (const name of script.names) {
    const v = table(name);
    if (v instanceof TierFunction) functions[name] = v;
  }
  const d = table('__default');
  if (isPlainObject(d)) for (const name of Object.keys(d)) if (d[name] instanceof TierFunction && !Object.hasOwn(functions, name)) functions[name] = d[name] as TierFunction;
  self.functions = functions;
}

/** An environment holding the names compiled code gets as parameters (read from `self` now). */
export function parametersEnv(self: TierSelf): Env {
  const env = new Env(null);
  for (const [name, value] of self.parameters()) env.vars.set(name, { value, mutable: true, ready: true });
  return env;
}
