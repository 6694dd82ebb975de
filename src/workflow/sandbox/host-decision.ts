import type { Node } from 'acorn';
import type { Evaluation, EvaluationResult, Scope } from '../../engine/evaluation.js';
import { DEFAULT_LIMITS } from './program.js';
import { tierPiece } from './tier/pieces.js';
import { runInTier } from './tier/run.js';

type Code = NonNullable<Evaluation['code']>;
/** What an evaluation asks to run, without its scope. */
export type EvaluationRequest = Pick<Evaluation, 'purpose' | 'code' | 'transitions' | 'fields'>;
/** The data a decision in the host may read. */
export type HostScope = Pick<Scope, 'common_data' | 'input' | 'last_agent_response' | 'sub_workflow_result' | 'workflow_input'>;

// biome-ignore lint/suspicious/noExplicitAny: acorn's nodes are read by their type tag, field by field.
type N = Node & Record<string, any>;
// The names a path may start from (this.input is the workflow's input, a String in the guest: not a path).
const ROOTS = new Set(['common_data', 'variables', 'input', 'last_agent_response', 'sub_workflow_result']);
// Template heads that name guest objects (contexts, agents, parsed tool calls), not plain data.
const GUEST_HEADS = new Set(['contexts', 'agents', 'last_tool_calls']);
const forms = new WeakMap<Code, boolean>();

/**
 * The result of an evaluation that runs no code, decided in the host by the host tier (see tier/run.ts) exactly as
 * the sandbox would decide it: a transition whose condition is null, a literal, a path or a path compared with a
 * literal by === or !== (and that has no before-code), an input that is a literal, a path into common_data / input /
 * the last answer, or a template of those, over primitive values. Null when the evaluation needs the sandbox (or the
 * tier with the whole scope: code, or data it does not decide here).
 */
export function decideInHost(request: EvaluationRequest, scope: HostScope, maxLogLines = 100): EvaluationResult | null {
  if (!mayDecideInHost(request)) return null;
  const full: Scope = { common_data: scope.common_data, input: scope.input, last_agent_response: scope.last_agent_response, contexts: {}, agents: {}, last_tool_calls: [] };
  if (scope.sub_workflow_result !== undefined) full.sub_workflow_result = scope.sub_workflow_result;
  if (scope.workflow_input !== undefined) full.workflow_input = scope.workflow_input;
  const result = runInTier({ workflow: '', state: '', ...request, scope: full }, null, { maxLogLines, maxResultBytes: DEFAULT_LIMITS.maxResultBytes }, { primitives: true });
  // Code that is no code changes nothing: common_data stays the engine's own object (the engine tells data it already holds by identity).
  return result?.ok ? { ...result, common_data: scope.common_data } : result;
}

/** Whether every piece of a request is of a kind the host decides in the engine's step (it still may not, for the data it meets). */
export function mayDecideInHost(request: EvaluationRequest): boolean {
  if (request.purpose === 'error') return false;
  if (request.transitions) return request.transitions.every((t) => (t.condition === null || isForm(t.condition)) && t.before === null);
  if (request.fields) return Object.values(request.fields).every(isForm);
  return request.code !== undefined && isForm(request.code);
}

// Code that is no code: a literal, a path into plain data, a path === / !== a literal, a template of plain data.
function isForm(code: Code): boolean {
  let form = forms.get(code);
  if (form === undefined) {
    form = formOf(code);
    forms.set(code, form);
  }
  return form;
}

function formOf(code: Code): boolean {
  if (code.kind === 'handler' || code.kind === 'statements') return false;
  const piece = tierPiece(code);
  if (!piece) return false;
  if (piece.kind === 'template') return piece.parts.every((p) => typeof p === 'string' || !GUEST_HEADS.has(p.path[0]!));
  if (piece.kind !== 'body') return false;
  const body = (piece.program as N).body as N[];
  // An expression is compiled as `return (expression);`.
  if (body.length !== 1 || body[0]!.type !== 'ReturnStatement' || !body[0]!.argument) return false;
  const e = body[0]!.argument as N;
  if (isLiteral(e) || isPath(e)) return true;
  return e.type === 'BinaryExpression' && (e.operator === '===' || e.operator === '!==') && ((isPath(e.left) && isLiteral(e.right)) || (isLiteral(e.left) && isPath(e.right)));
}

function isLiteral(e: N): boolean {
  if (e.type === 'UnaryExpression' && e.operator === '-') return e.argument.type === 'Literal' && typeof e.argument.value === 'number';
  return e.type === 'Literal' && (e.value === null || typeof e.value === 'string' || typeof e.value === 'number' || typeof e.value === 'boolean');
}

// `root.a.b`, `this.root.a.b` (not this.input): plain property names, no computed or optional step.
function isPath(e: N): boolean {
  let at = e;
  while (at.type === 'MemberExpression') {
    if (at.computed || at.optional) return false;
    if (at.object.type === 'ThisExpression') return at.property.name !== 'input' && ROOTS.has(at.property.name);
    at = at.object;
  }
  return at.type === 'Identifier' && ROOTS.has(at.name);
}
