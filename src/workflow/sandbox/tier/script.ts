import { loadScriptModule } from '../script-module.js';
import { runsOnce } from '../script-once.js';
import { compileBody, type Statement } from './compile.js';
import { Interpreter } from './interpret.js';
import { parseBody } from './parse.js';
import type { TierSelf } from './self.js';
import { bail, Env, isPlainObject, slotValue, TierFunction } from './values.js';

/** script.js as the tier runs it: its body (loadScriptModule's source) compiled, and its top-level names. */
export interface TierScript {
  run: Statement;
  names: string[];
  /**
   * Its functions, made once, when its top level holds no state and names no scope name (runsOnce: the guest then
   * runs it once per context too): they read nothing of the part they were made in, so every part may call them.
   */
  once: Record<string, TierFunction> | null;
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
  // A top-level return would cut off the table of names the guest appends.
  if ((program as unknown as { body: { type: string }[] }).body.some((s) => s.type === 'ReturnStatement')) return null;
  let run: Statement;
  try {
    run = compileBody(program);
  } catch {
    // A tree deeper than the host's stack compiles: the sandbox runs it.
    return null;
  }
  const script: TierScript = { run, names: module.names, once: null };
  if (runsOnce(module.source)) {
    try {
      script.once = functionsOf(script, new Env(null), new Interpreter(() => bail('a free name at the top of script.js')), undefined);
    } catch {
      // Its top level does what the tier does not model: each part runs it (and gives up there).
    }
  }
  return script;
}

/**
 * Runs script.js's top level for a part (as the guest does, afresh, with the part's scope names as its
 * parameters) and puts its functions on `self`: its top-level functions, then the default export's methods.
 */
export function loadScript(script: TierScript, self: TierSelf, running: Interpreter): void {
  self.functions = script.once ?? functionsOf(script, parametersEnv(self), running, self);
}

function functionsOf(script: TierScript, env: Env, running: Interpreter, self: unknown): Record<string, TierFunction> {
  script.run(running, env, self);
  const functions: Record<string, TierFunction> = {};
  const table = (name: string): unknown => {
    const slot = env.vars.get(name);
    if (slot && !slot.ready) bail('a script.js name read before its declaration');
    return slot ? slotValue(slot) : undefined;
  };
  for (const name of script.names) {
    const v = table(name);
    if (v instanceof TierFunction) functions[name] = v;
  }
  const d = table('__default');
  if (isPlainObject(d)) for (const name of Object.keys(d)) if (d[name] instanceof TierFunction && !Object.hasOwn(functions, name)) functions[name] = d[name] as TierFunction;
  return functions;
}

/** An environment holding the names compiled code gets as parameters (from `self` as it is now). */
export function parametersEnv(self: TierSelf): Env {
  const env = new Env(null);
  self.bindParameters(env);
  return env;
}
