import type { Node } from 'acorn';
import type { Evaluation } from '../../../engine/evaluation.js';
import { preparePiece } from '../prepare.js';
import type { TemplatePart } from '../template.js';
import { compileBody, type Statement } from './compile.js';
import { parseBody } from './parse.js';

type Code = NonNullable<Evaluation['code']>;

/** A piece of workflow code as the tier runs it: a parsed body (as the guest compiles it) and its closures, made once, a template, a script.js handler's name. */
export type TierPiece = { kind: 'body'; program: Node; run: Statement } | { kind: 'template'; parts: TemplatePart[] } | { kind: 'handler'; name: string };

// By code object (a plan's code is the same object every time), and by its text for code made afresh.
const byObject = new WeakMap<Code, TierPiece | null>();
const bySource = new Map<string, TierPiece | null>();
const MAX_CACHED = 2000;

/** The tier's form of a piece of code, made once; null when the tier never runs it (a form it does not interpret, code the guest would refuse). */
export function tierPiece(code: Code): TierPiece | null {
  let piece = byObject.get(code);
  if (piece !== undefined) return piece;
  const key = code.kind === 'handler' ? `h${code.name}` : `${code.kind[0]}${code.source}`;
  piece = bySource.get(key);
  if (piece === undefined) {
    piece = build(code);
    if (bySource.size >= MAX_CACHED) bySource.clear();
    bySource.set(key, piece);
  }
  byObject.set(code, piece);
  return piece;
}

function build(code: Code): TierPiece | null {
  let prepared: ReturnType<typeof preparePiece>;
  try {
    // The very text the guest compiles (the shorthand rewritten, a function string called on this, an expression returned).
    prepared = preparePiece(code, 'code');
  } catch {
    return null;
  }
  if (prepared.kind === 'handler') return { kind: 'handler', name: prepared.name };
  if (prepared.kind === 'template') return { kind: 'template', parts: prepared.parts };
  let program = parseBody(prepared.body);
  // The guest compiles the fallback (the code as statements) when the expression form does not compile.
  if (program === 'syntax' && prepared.fallback !== undefined) program = parseBody(prepared.fallback);
  if (typeof program === 'string') return null;
  try {
    return { kind: 'body', program, run: compileBody(program) };
  } catch {
    // A tree deeper than the host's stack compiles (parse.ts walked it, with less on the stack): the sandbox decides.
    return null;
  }
}
