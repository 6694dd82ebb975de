import { createHash } from 'node:crypto';
import type { ChainStep, Evaluation } from '../../engine/evaluation.js';
import { sizeText } from './failure.js';
import { LAZY_FIELDS, type CodePiece, type Program, type SandboxLimits } from './program.js';
import type { JobPart } from './run-job.js';
import { loadScriptModule } from './script-module.js';
import { functionsOnThis, namesOf, type ScriptNames } from './script-on-this.js';
import { runsOnce } from './script-once.js';
import { scopeReadsOf, unionReads, type ScopeField, type ScopeReads } from './scope-reads.js';
import { findImport, rewriteShorthand } from './shorthand.js';
import { parseTemplate } from './template.js';
import { functionSource, withoutTrailingSemicolons } from './unwrap.js';
import { TroupeError } from '../../errors.js';

type Code = NonNullable<Evaluation['code']>;
type Request = Pick<Evaluation, 'purpose' | 'state' | 'code' | 'transitions' | 'fields'>;
/** A step of the chain in order: the part it follows (-1: none) and the state that part must choose for it to run (null: any). */
type Step = { request: Request; after: number; target: string | null };

/** An evaluation made ready for a worker: its programs as JSON, what of the scope they read, script.js if a piece is a handler. */
export interface PreparedJob {
  parts: JobPart[];
  reads: ScopeReads;
  script: { hash: string; source: string } | null;
}

/** A job for the guest, or why the evaluation cannot run at all (one line). */
export type Prepared = { ok: true; job: PreparedJob } | { ok: false; error: string };

type PreparedScript = { ok: true; hash: string; source: string; names: string[]; once: boolean; reads: ScopeReads; scanned: ScriptNames } | { ok: false; error: string };

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
// Far beyond any condition or script a workflow needs; past this it is data pasted by mistake (or an attack).
const MAX_CODE = 256 * 1024;
const MAX_SCRIPT = 1024 * 1024;
const KIND_WORDS: Record<Code['kind'], string> = { expression: 'expression', statements: 'script', template: 'template', handler: 'handler' };
const TEMPLATE_FIELDS = new Set(['input', 'last_agent_response', 'last_tool_calls', 'sub_workflow_result', 'last_error', 'contexts', 'agents']);
// Prepared once per workflow version: script.js by its text, jobs by their code (and script.js's hash).
const CACHE_SIZE = 1000;
const scripts = new Map<string, PreparedScript>();
const jobs = new Map<string, Prepared>();

/**
 * Turns an evaluation and the steps chained after it into the guest's programs, in the order they may run:
 * each piece of code classified, rewritten and labelled. Pure, and cached: the same code is prepared once.
 */
export function prepareEvaluation(evaluation: Evaluation, script: string | null, limits: Pick<SandboxLimits, 'maxLogLines'>): Prepared {
  const steps = flatten(evaluation);
  const requests = steps.map((s) => s.request);
  const prepared = usesHandler(requests) && script !== null ? prepareScript(script) : null;
  const key = `${evaluation.workflow.length}:${evaluation.workflow},${limits.maxLogLines},${prepared?.ok ? prepared.hash : ''};${steps.map(stepKey).join(';')}`;
  let job = jobs.get(key);
  if (!job) {
    job = prepareJob(evaluation.workflow, steps, script, prepared, limits);
    remember(jobs, key, job);
  }
  return job;
}

// A step of the chain as part of a cache key. The workflow's code reaches here as the same objects of its plan
// every time: those are named by a number given once per object (no JSON of the code per evaluation); a field
// list is made afresh for each evaluation, so it goes by its JSON.
function stepKey({ after, target, request }: Step): string {
  const fields = request.fields ? JSON.stringify(request.fields) : '';
  // Each text with its length before it, so no two steps share a key.
  return `${after},${target === null ? -1 : `${target.length}:${target}`},${request.purpose},${request.state.length}:${request.state},${objectId(request.code)},${objectId(request.transitions)},${fields.length}:${fields}`;
}

const objectIds = new WeakMap<object, number>();
let lastObjectId = 0;

function objectId(value: object | undefined): number {
  if (value === undefined) return 0;
  let id = objectIds.get(value);
  if (id === undefined) {
    id = ++lastObjectId;
    objectIds.set(value, id);
  }
  return id;
}

// The evaluation, then its chain depth first: what follows whatever a step gives, and what follows it in each state it may choose.
function flatten(evaluation: Evaluation): Step[] {
  const steps: Step[] = [{ request: evaluation, after: -1, target: null }];
  visit(steps, evaluation, 0, evaluation.state);
  return steps;
}

// Module-level functions rather than closures in flatten: it runs on every evaluation.
function visit(steps: Step[], from: ChainStep, at: number, state: string): void {
  if (from.next) follow(steps, from.next, at, null, state);
  if (from.targets) for (const target of Object.keys(from.targets)) follow(steps, from.targets[target]!, at, target, target);
}

function follow(steps: Step[], step: ChainStep, at: number, target: string | null, state: string): void {
  steps.push({ request: { ...step, state }, after: at, target });
  visit(steps, step, steps.length - 1, state);
}

function prepareJob(workflow: string, steps: Step[], script: string | null, prepared: PreparedScript | null, limits: Pick<SandboxLimits, 'maxLogLines'>): Prepared {
  try {
    const programs = steps.map(
      ({ request, after, target }): Program => ({
        ...programOf(request),
        maxLogLines: limits.maxLogLines,
        maxLogChars: 1000,
        ...(request.purpose === 'decide' ? { decides: true } : {}),
        ...(after >= 0 ? { chained: true } : {}),
        // A step in the state chosen before it runs there afresh: that state's input is not set yet.
        ...(target !== null ? { freshInput: true } : {}),
      }),
    );
    const pieces = programs.flatMap(piecesOf);
    const reads = unionReads(pieces.map(readsOf));
    const handler = pieces.find((p) => p.kind === 'handler');
    // Every part of a job gets the names on `this` that any of its code (or script.js) can name.
    const parts = (withScript: Program[], jobReads: ScopeReads): JobPart[] =>
      withScript.map((p, i) => ({ program: JSON.stringify(jobReads === 'all' ? p : { ...p, reach: LAZY_FIELDS.filter((f) => jobReads.has(f)) }), after: steps[i]!.after, target: steps[i]!.target }));
    if (!handler) return { ok: true, job: { parts: parts(programs, reads), reads, script: null } };
    if (script === null) return { ok: false, error: `${handler.label}: workflow ${workflow} has no script.js to find it in` };
    if (!prepared?.ok) return { ok: false, error: prepared?.error ?? 'script.js could not be read' };
    const jobReads = unionReads([reads, prepared.reads]);
    const onThis =
      jobReads === 'all'
        ? null
        : functionsOnThis(
            prepared.scanned,
            pieces.flatMap((p) => (p.kind === 'body' ? [namesOf(sources.get(p) ?? p.body)] : [])),
          );
    const withScript = programs.map((p) => ({ ...p, script: { workflow, hash: prepared.hash, names: prepared.names, once: prepared.once, ...(onThis ? { onThis } : {}) } }));
    return { ok: true, job: { parts: parts(withScript, jobReads), reads: jobReads, script: { hash: prepared.hash, source: prepared.source } } };
  } catch (error) {
    if (error instanceof PrepareError) return { ok: false, error: error.message };
    throw error;
  }
}

function programOf(request: Request): Pick<Program, 'mode' | 'code' | 'transitions' | 'fields'> {
  if (request.purpose === 'transitions') {
    if (!request.transitions) throw new PrepareError('a transitions evaluation came without transitions');
    const transitions = request.transitions.map((t, i) => {
      const [condition, before] = t.target
        ? [`condition of ${request.state} → ${t.target}`, `before-code of ${request.state} → ${t.target}`]
        : [`transition ${i + 1} condition`, `transition ${i + 1} before`];
      return { condition: t.condition ? preparePiece(t.condition, condition) : null, before: t.before ? preparePiece(t.before, before) : null, target: t.target ?? null };
    });
    return { mode: 'transitions', transitions };
  }
  if (request.purpose === 'sub_input' || request.purpose === 'branch_input') {
    if (!request.fields) throw new PrepareError(`a ${request.purpose} evaluation came without fields`);
    return { mode: 'fields', fields: Object.entries(request.fields).map(([name, code]): [string, CodePiece] => [name, preparePiece(code, `field ${name}`)]) };
  }
  if (!request.code) throw new PrepareError(`a ${request.purpose} evaluation came without code`);
  return { mode: 'code', code: preparePiece(request.code, KIND_WORDS[request.code.kind]) };
}

/** script.js made loadable, once per text (its hash names it in the guest, which compiles it once per context). */
function prepareScript(script: string): PreparedScript {
  let prepared = scripts.get(script);
  if (prepared) return prepared;
  if (script.length > MAX_SCRIPT) prepared = { ok: false, error: `script.js is too long (${sizeText(script.length)}; at most ${sizeText(MAX_SCRIPT)})` };
  else {
    const module = loadScriptModule(script);
    prepared = module.ok
      ? {
          ok: true,
          hash: createHash('sha256').update(script).digest('hex').slice(0, 32),
          source: module.source,
          names: module.names,
          once: runsOnce(module.source),
          reads: scopeReadsOf(module.source),
          scanned: namesOf(module.source),
        }
      : { ok: false, error: `script.js: ${module.error}` };
  }
  remember(scripts, script, prepared);
  return prepared;
}

/** One piece of code for the guest. Throws a PrepareError for code that can never run (an import, a bad handler name). */
export function preparePiece(code: Code, label: string): CodePiece {
  if (code.kind === 'handler') {
    if (!IDENTIFIER.test(code.name)) throw new PrepareError(`${label} "${code.name}": a handler is named by a function name in script.js`);
    return { kind: 'handler', label: `${label} ${code.name}`, snippet: '', name: code.name };
  }
  const snippet = snippetOf(code.source);
  if (code.source.length > MAX_CODE) throw new PrepareError(`${label} \`${snippet}\` is too long (${sizeText(code.source.length)}; at most ${sizeText(MAX_CODE)})`);
  if (code.kind === 'template') return { kind: 'template', label, snippet, parts: parseTemplate(code.source) };
  const imported = findImport(code.source);
  if (imported) throw new PrepareError(`${label} \`${snippet}\` ${imported}`);
  const source = rewriteShorthand(code.source);
  const fn = functionSource(source);
  // A function written as a string is called with `this` bound and the scope as its one argument.
  if (fn) return scanned({ kind: 'body', label, snippet, body: `return (${fn}).call(this, this);` }, code.source);
  if (code.kind === 'statements') return scanned({ kind: 'body', label, snippet, body: source }, code.source);
  const expression = withoutTrailingSemicolons(source);
  if (expression.trim() === '') throw new PrepareError(`${label} is empty: write an expression such as common_data.task`);
  // Loaders may call statements an expression: when it does not parse as one, it runs as statements.
  return scanned({ kind: 'body', label, snippet, body: `return (${expression}\n);`, fallback: source }, code.source);
}

/** The source on one line, cut to 80 characters (for messages). */
export function snippetOf(source: string): string {
  const line = source.slice(0, 200).replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

class PrepareError extends TroupeError {}

function piecesOf(program: Pick<Program, 'code' | 'transitions' | 'fields'>): CodePiece[] {
  return [
    ...(program.code ? [program.code] : []),
    ...(program.fields ?? []).map(([, p]) => p),
    ...(program.transitions ?? []).flatMap((t) => [t.condition, t.before].filter((p): p is CodePiece => p !== null)),
  ];
}

function readsOf(piece: CodePiece): ScopeReads {
  if (piece.kind === 'handler') return new Set();
  if (piece.kind === 'template') {
    const heads = piece.parts.flatMap((p) => (typeof p !== 'string' && TEMPLATE_FIELDS.has(p.path[0]!) ? [p.path[0] as ScopeField] : []));
    // {input...} reads the workflow's input.
    return new Set(heads.flatMap((h): ScopeField[] => (h === 'input' ? ['input', 'workflow_input'] : h === 'contexts' ? ['contexts', 'context_limits'] : h === 'agents' ? ['agents', 'roster'] : [h])));
  }
  return scopeReadsOf(sources.get(piece) ?? piece.body);
}

// The source a piece was written as (what the scope scan reads: the body wraps a function string in `.call(this, this)`).
const sources = new WeakMap<CodePiece, string>();

function scanned(piece: CodePiece, source: string): CodePiece {
  sources.set(piece, source);
  return piece;
}

function usesHandler(requests: Request[]): boolean {
  for (const r of requests) {
    if (r.code?.kind === 'handler') return true;
    if (r.fields) for (const code of Object.values(r.fields)) if (code.kind === 'handler') return true;
    if (r.transitions) for (const t of r.transitions) if (t.condition?.kind === 'handler' || t.before?.kind === 'handler') return true;
  }
  return false;
}

function remember<T>(cache: Map<string, T>, key: string, value: T): void {
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}
