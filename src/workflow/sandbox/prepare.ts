import type { Evaluation } from '../../engine/evaluation.js';
import { sizeText } from './failure.js';
import type { Piece, Program, SandboxLimits } from './program.js';
import { loadScriptModule } from './script-module.js';
import { findImport, rewriteShorthand } from './shorthand.js';
import { parseTemplate } from './template.js';
import { functionSource, withoutTrailingSemicolons } from './unwrap.js';
import { TroupeError } from '../../errors.js';

type Code = NonNullable<Evaluation['code']>;

/** A program for the guest, or why the evaluation cannot run at all (one line). */
export type Prepared = { ok: true; program: Program } | { ok: false; error: string };

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
// Far beyond any condition or script a workflow needs; past this it is data pasted by mistake (or an attack).
const MAX_CODE = 256 * 1024;
const MAX_SCRIPT = 1024 * 1024;
const KIND_WORDS: Record<Code['kind'], string> = { expression: 'expression', statements: 'script', template: 'template', handler: 'handler' };

/** Turns an evaluation into the guest's program: each piece of code classified, rewritten and labelled (pure). */
export function prepareProgram(evaluation: Evaluation, script: string | null, limits: Pick<SandboxLimits, 'maxLogLines'>): Prepared {
  try {
    const base = { maxLogLines: limits.maxLogLines, maxLogChars: 1000 };
    let program: Program;
    if (evaluation.purpose === 'transitions') {
      if (!evaluation.transitions) return { ok: false, error: 'a transitions evaluation came without transitions' };
      const transitions = evaluation.transitions.map((t, i) => ({
        condition: t.condition ? preparePiece(t.condition, `transition ${i + 1} condition`) : null,
        before: t.before ? preparePiece(t.before, `transition ${i + 1} before`) : null,
      }));
      program = { ...base, mode: 'transitions', transitions };
    } else if (evaluation.purpose === 'sub_input' || evaluation.purpose === 'branch_input') {
      if (!evaluation.fields) return { ok: false, error: `a ${evaluation.purpose} evaluation came without fields` };
      const fields = Object.entries(evaluation.fields).map(([name, code]): [string, Piece] => [name, preparePiece(code, `field ${name}`)]);
      program = { ...base, mode: 'fields', fields };
    } else {
      if (!evaluation.code) return { ok: false, error: `a ${evaluation.purpose} evaluation came without code` };
      program = { ...base, mode: 'code', code: preparePiece(evaluation.code, KIND_WORDS[evaluation.code.kind]) };
    }
    if (!usesHandler(program)) return { ok: true, program };
    if (script === null) return { ok: false, error: `${firstHandler(program)}: workflow ${evaluation.workflow} has no script.js to find it in` };
    if (script.length > MAX_SCRIPT) return { ok: false, error: `script.js of workflow ${evaluation.workflow} is too long (${sizeText(script.length)}; at most ${sizeText(MAX_SCRIPT)})` };
    const module = loadScriptModule(script);
    if (!module.ok) return { ok: false, error: `script.js of workflow ${evaluation.workflow}: ${module.error}` };
    return { ok: true, program: { ...program, script: { workflow: evaluation.workflow, source: module.source, names: module.names } } };
  } catch (error) {
    if (error instanceof PrepareError) return { ok: false, error: error.message };
    throw error;
  }
}

/** One piece of code for the guest. Throws a PrepareError for code that can never run (an import, a bad handler name). */
export function preparePiece(code: Code, label: string): Piece {
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
  if (fn) return { kind: 'body', label, snippet, body: `return (${fn}).call(this, this);` };
  if (code.kind === 'statements') return { kind: 'body', label, snippet, body: source };
  const expression = withoutTrailingSemicolons(source);
  if (expression.trim() === '') throw new PrepareError(`${label} is empty: write an expression such as common_data.task`);
  // Loaders may call statements an expression: when it does not parse as one, it runs as statements.
  return { kind: 'body', label, snippet, body: `return (${expression}\n);`, fallback: source };
}

/** The source on one line, cut to 80 characters (for messages). */
export function snippetOf(source: string): string {
  const line = source.slice(0, 200).replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

class PrepareError extends TroupeError {}

function pieces(program: Program): Piece[] {
  return [
    ...(program.code ? [program.code] : []),
    ...(program.fields ?? []).map(([, p]) => p),
    ...(program.transitions ?? []).flatMap((t) => [t.condition, t.before].filter((p): p is Piece => p !== null)),
  ];
}

function usesHandler(program: Program): boolean {
  return pieces(program).some((p) => p.kind === 'handler');
}

function firstHandler(program: Program): string {
  return pieces(program).find((p) => p.kind === 'handler')?.label ?? 'handler';
}
