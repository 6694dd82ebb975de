import type { ChainStep, Evaluation, EvaluationResult } from '../../../engine/evaluation.js';
import { jsonDepth, MAX_JSON_DEPTH } from '../json-depth.js';
import type { SandboxLimits } from '../program.js';
import { copyData, jsonOf, resultData } from './data.js';
import { consoleFor, GLOBAL_NAMESPACES, LogSink } from './globals.js';
import type { Added } from './guest-objects.js';
import { Interpreter } from './interpret.js';
import { type TierPiece, tierPiece } from './pieces.js';
import { loadScript, parametersEnv, type TierScript, tierScript } from './script.js';
import { type PartData, TierSelf } from './self.js';
import { renderTemplate } from './template.js';
import { Bail, bail, isPlainObject, refuse, type TierObject } from './values.js';

type Code = NonNullable<Evaluation['code']>;
// A step of the chain in order: its request, the part it follows (-1: none) and the state that part must choose (null: any).
type Step = { request: ChainStep; after: number; target: string | null };
// refused: why the tier gave up on its code (Bail.ofCode) when it last ran with that script.js: it is not tried again with it.
type Program = { refused?: { script: TierScript | null; why: string } } & (
  | { mode: 'code'; code: TierPiece; decides: boolean }
  | { mode: 'fields'; fields: [string, TierPiece][] }
  | { mode: 'transitions'; transitions: { condition: TierPiece | null; before: TierPiece | null; target: string | null }[] }
);
// The guest's own names that a scope name resolves to (free names it reads through the global object).
const THIS_NAMES = new Set(['contexts', 'agents', 'workflow_contexts', 'getAgent', 'getToolCalls', 'getContext', 'context', 'last_response']);
const MAX_LOG_CHARS = 1000;

/**
 * How many evaluations the host tier answered, how many it left to the sandbox, how many of those it did not try
 * (code it refused before), and why it left the last one (for benches and tests).
 */
export const hostTierCounts = { tier: 0, sandbox: 0, refused: 0, lastBail: '' };

/**
 * The host tier: an evaluation (and what is chained after it) run by the tier's interpreter on copies of the
 * scope, with the result the QuickJS sandbox gives for it, or null (nothing done) when any of it is outside what
 * the tier models: the sandbox then runs it as it always has. Never throws, never gives an error of its own.
 */
export function runInTier(evaluation: Evaluation, script: string | null, limits: TierLimits, options: TierOptions = {}): EvaluationResult | null {
  const before = gaveUp.get(evaluation);
  if (before && before.script === script && before.maxLogLines === limits.maxLogLines && before.maxResultBytes === limits.maxResultBytes && !options.primitives) {
    return refused(before.why);
  }
  let result: EvaluationResult | null;
  try {
    result = runChain(evaluation, script, limits, options);
  } catch (error) {
    // A Bail, or anything else thrown on the way (a built-in's RangeError, a GuestThrow no catch took): the sandbox decides.
    hostTierCounts.lastBail = error instanceof Error ? error.message : 'an uncaught guest error';
    result = null;
  }
  if (result === null && !options.primitives) gaveUp.set(evaluation, { script, maxLogLines: limits.maxLogLines, maxResultBytes: limits.maxResultBytes, why: hostTierCounts.lastBail });
  return result;
}

// Evaluations the tier gave up on, with what it ran them with: the very same evaluation asked again (the engine's
// step tried it, then sent it to the evaluator) gives up at once, so the thread is not held twice for it.
const gaveUp = new WeakMap<Evaluation, TierLimits & { script: string | null; why: string }>();

type TierLimits = Pick<SandboxLimits, 'maxLogLines' | 'maxResultBytes'>;
/** primitives: decide only over primitive values (no object compared or given as the value): the engine's in-step decisions. */
export interface TierOptions {
  primitives?: boolean;
}

function runChain(evaluation: Evaluation, scriptSource: string | null, limits: TierLimits, options: TierOptions): EvaluationResult | null {
  const steps = stepsOf(evaluation);
  // One loop, not map and some: the inlined builtins saw arrays of another map in a later session and the optimised
  // runChain was thrown away (measured: --trace-deopt, "wrong map").
  const programs: Program[] = [];
  let handlers = false;
  for (const s of steps) {
    const p = programOf(s.request);
    if (p === null) return refused('code the tier does not interpret');
    programs.push(p);
    handlers ||= usesHandler(p);
  }
  let script: TierScript | null = null;
  if (handlers) {
    if (scriptSource === null) return bail('a handler without script.js');
    script = tierScript(scriptSource);
    if (!script) return bail('a script.js the tier does not interpret');
  }
  // Code the tier refused before (with this script.js) goes to the sandbox at once: it would give up again, whatever its data.
  for (const p of programs) {
    if (p.refused && p.refused.script === script) return refused(p.refused.why);
  }
  let base: Added | null = null;
  const running = new Interpreter(() => bail('a free name'));
  const results: Record<string, unknown>[] = [];
  let commonData: unknown = null;
  // What the part's common_data is a copy of: the scope's, then what the part before left.
  let source: unknown = evaluation.scope.common_data;
  let at = 0;
  for (;;) {
    const step = steps[at]!;
    // Code that cannot change anything (the engine's in-step decisions) reads the engine's data as it is.
    const copy = options.primitives ? (v: unknown) => v : copyData;
    const data: PartData = {
      scope: evaluation.scope,
      commonData: at === 0 ? copy(evaluation.scope.common_data) : commonData,
      input: step.target !== null ? null : copy(evaluation.scope.input),
      added: new Map(),
      base,
      copy,
    };
    let part: ReturnType<typeof runPart>;
    try {
      part = runPart(programs[at]!, data, source, script, running, limits, options);
    } catch (error) {
      if (error instanceof Bail && error.ofCode) programs[at]!.refused = { script, why: error.why };
      throw error;
    }
    results.push(part.result);
    // A part chained after this one sees the messages added so far in the job (the engine appends them before it runs it).
    if (data.added.size > 0) base = joined(base, data.added);
    const from = at;
    at = steps.findIndex((s) => s.after === from && (s.target === null || s.target === part.chosen));
    if (at === -1) break;
    // The next part starts from the common_data this one left, as a copy of its own.
    source = part.result.common_data;
    commonData = options.primitives ? data.commonData : copyData(source);
  }
  for (let i = results.length - 2; i >= 0; i--) results[i]!.next = results[i + 1];
  hostTierCounts.tier += 1;
  return results[0] as EvaluationResult;
}

// An evaluation left to the sandbox without trying it (no Bail thrown: this is the path of every evaluation of such code).
function refused(why: string): null {
  hostTierCounts.refused += 1;
  hostTierCounts.lastBail = why;
  return null;
}

// The steps chained after an evaluation, by what it chains (the engine's chain objects are made once per state and shared
// by its evaluations): walked once for each, not at every evaluation.
const chainedSteps = new WeakMap<object, Step[]>();

// The evaluation's steps: itself first, then its chain depth first.
function stepsOf(evaluation: Evaluation): Step[] {
  const first: Step = { request: evaluation, after: -1, target: null };
  const key = evaluation.next && evaluation.targets ? null : (evaluation.next ?? evaluation.targets);
  if (!key) {
    const steps = [first];
    visit(steps, evaluation, 0);
    return steps;
  }
  let rest = chainedSteps.get(key);
  if (!rest) {
    const walked: Step[] = [first];
    visit(walked, { purpose: evaluation.purpose, next: evaluation.next, targets: evaluation.targets }, 0);
    rest = walked.slice(1);
    chainedSteps.set(key, rest);
  }
  return [first].concat(rest);
}

// The chain depth first, as prepare.ts flattens it for the guest.
function visit(steps: Step[], from: ChainStep, at: number): void {
  if (from.next) follow(steps, from.next, at, null);
  if (from.targets) for (const target of Object.keys(from.targets)) follow(steps, from.targets[target]!, at, target);
}

function follow(steps: Step[], step: ChainStep, at: number, target: string | null): void {
  steps.push({ request: step, after: at, target });
  visit(steps, step, steps.length - 1);
}

// Programs by the plan objects they are made of (the code, the transitions, the fields of a request), and purpose.
const programs = new WeakMap<object, Map<string, Program | null>>();

function programOf(request: ChainStep): Program | null {
  const key = request.transitions ?? request.fields ?? request.code;
  if (!key) return null;
  let byPurpose = programs.get(key);
  if (!byPurpose) {
    byPurpose = new Map();
    programs.set(key, byPurpose);
  }
  let program = byPurpose.get(request.purpose);
  if (program === undefined) {
    program = buildProgram(request);
    byPurpose.set(request.purpose, program);
  }
  return program;
}

function buildProgram(request: ChainStep): Program | null {
  const piece = (code: Code | null | undefined): TierPiece | null => (code ? tierPiece(code) : null);
  if (request.purpose === 'transitions') {
    if (!request.transitions) return null;
    const transitions = request.transitions.map((t) => ({ condition: piece(t.condition), before: piece(t.before), target: t.target ?? null }));
    if (transitions.some((t, i) => (request.transitions![i]!.condition && !t.condition) || (request.transitions![i]!.before && !t.before))) return null;
    return { mode: 'transitions', transitions };
  }
  if (request.purpose === 'sub_input' || request.purpose === 'branch_input') {
    if (!request.fields) return null;
    const fields = Object.entries(request.fields).map(([name, code]): [string, TierPiece | null] => [name, piece(code)]);
    // A field named __proto__ would be the prototype in the guest's answer.
    if (fields.some(([name, p]) => p === null || name === '__proto__')) return null;
    return { mode: 'fields', fields: fields as [string, TierPiece][] };
  }
  const code = piece(request.code);
  return code ? { mode: 'code', code, decides: request.purpose === 'decide' } : null;
}

function usesHandler(p: Program): boolean {
  if (p.mode === 'code') return p.code.kind === 'handler';
  if (p.mode === 'fields') return p.fields.some(([, f]) => f.kind === 'handler');
  return p.transitions.some((t) => t.condition?.kind === 'handler' || t.before?.kind === 'handler');
}

// What the parts of a job added to contexts so far, and what one more part added.
function joined(base: Added | null, added: Added): Added {
  const out: Added = new Map(base ?? []);
  for (const [name, list] of added) out.set(name, (out.get(name) ?? []).concat(list));
  return out;
}

// A piece of a part's code run: its value (primitives: a value that is an object gives up). A function of the module, not
// two closures made for each part (each compiled by V8 on its own).
function runPiece(piece: TierPiece, self: TierSelf, interp: Interpreter, logs: LogSink, primitives: boolean): unknown {
  let v: unknown;
  if (piece.kind === 'template') v = renderTemplate(piece.parts, self, logs);
  else if (piece.kind === 'handler') {
    const fn = Object.hasOwn(self.functions, piece.name) ? self.functions[piece.name] : refuse('a handler script.js does not have');
    v = interp.call(fn, self, [self]);
  } else {
    const done = piece.run(interp, parametersEnv(self), self);
    v = done?.kind === 'return' ? done.value : undefined;
  }
  if (primitives && v !== null && typeof v === 'object') bail('an object value decided in the step');
  return v;
}

/** One part, as the guest's runPart answers it: its result, the common_data it left (JSON; `source` itself when it is that), and the state it chose. */
function runPart(
  program: Program,
  data: PartData,
  source: unknown,
  script: TierScript | null,
  running: Interpreter,
  limits: TierLimits,
  options: TierOptions,
): { result: Record<string, unknown>; chosen: string } {
  // The interpreter counts the work of reading contexts (made below: the scope's names are read once it runs).
  const self = new TierSelf(data, (units) => interp.spend(units));
  const logs = new LogSink(limits.maxLogLines, MAX_LOG_CHARS);
  let console: TierObject | null = null;
  const free = (name: string): unknown => {
    if (THIS_NAMES.has(name)) return self.get(name);
    if (name === 'console') {
      console ??= consoleFor(logs);
      return console;
    }
    if (Object.hasOwn(GLOBAL_NAMESPACES, name)) return GLOBAL_NAMESPACES[name];
    return refuse(`the free name ${name}`);
  };
  const interp = new Interpreter(free, options.primitives === true);
  interp.steps = running.steps;
  if (script) loadScript(script, self, interp);
  const primitives = options.primitives === true;
  let value: string | undefined;
  let chosen = '';
  if (program.mode === 'code') {
    const v = runPiece(program.code, self, interp, logs, primitives);
    if (program.decides && typeof v === 'string') chosen = v;
    value = jsonOf(v);
  } else if (program.mode === 'fields') {
    const out: string[] = [];
    for (const [name, piece] of program.fields) {
      const v = jsonOf(runPiece(piece, self, interp, logs, primitives));
      if (v !== undefined) out.push(`${JSON.stringify(name)}:${v}`);
    }
    value = `{${out.join(',')}}`;
  } else {
    value = '-1';
    for (const [i, t] of program.transitions.entries()) {
      const holds = t.condition ? runPiece(t.condition, self, interp, logs, primitives) : true;
      // Anything but a boolean is an error in the guest.
      if (holds !== true && holds !== false) bail('a condition that is not a boolean');
      if (holds) {
        if (t.before) runPiece(t.before, self, interp, logs, primitives);
        chosen = t.target ?? '';
        value = String(i);
        break;
      }
    }
  }
  running.steps = interp.steps;
  const cd = self.get('common_data');
  if (!isPlainObject(cd)) bail('common_data that is not an object');
  // In the step common_data is the engine's, unchanged (decideInHost gives it back as it is).
  const { data: commonData, bound, least } = options.primitives ? { data: cd, bound: 0, least: 0 } : resultData(cd, source);
  const lines = logs.finished();
  const appended = data.added.size > 0 ? JSON.stringify(Object.fromEntries(data.added)) : '';
  // The checks the host makes of every answer of the guest (an answer that fails them is an error: the sandbox's to give):
  // its size (the exact length of its JSON only when an upper bound of it is near the limit), and its depth
  // (common_data and a value nest at most MAX_JSON_DEPTH, as resultData and jsonOf saw to; fields one more).
  const rest =
    '{"ok":true,"common_data":}'.length +
    (value === undefined ? 0 : ',"value":'.length + value.length) +
    (lines ? ',"logs":'.length + JSON.stringify(lines).length : 0) +
    (appended ? ',"appended":'.length + appended.length : 0);
  // Certainly too large (its strings alone): never written out (a megabyte string shared 30,000 times in common_data had
  // V8 fill the host's heap to write it).
  if (least + rest > limits.maxResultBytes) bail('an answer too large');
  if (bound + rest > limits.maxResultBytes && JSON.stringify(commonData).length + rest > limits.maxResultBytes) bail('an answer too large');
  if (program.mode === 'fields' && jsonDepth(value!) > MAX_JSON_DEPTH) bail('an answer too deep');
  // The answer as the guest's JSON reads back, in the guest's key order.
  const result: Record<string, unknown> = { ok: true, common_data: commonData };
  if (value !== undefined) result.value = JSON.parse(value);
  if (lines) result.logs = lines;
  // The messages added are the tier's own ({ role, content } of strings, never given to code): the answer takes them as they are.
  if (appended) result.appended = Object.fromEntries(data.added);
  return { result, chosen };
}
