import { shouldInterruptAfterDeadline, type QuickJSContext, type QuickJSHandle } from 'quickjs-emscripten';
import type { Evaluation, EvaluationResult } from '../../engine/evaluation.js';
import { failureMessage, oneLine, sizeText } from './failure.js';
import type { GuestContext } from './guest-context.js';
import { jsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
import { prepareProgram } from './prepare.js';
import type { GuestFailure, SandboxLimits } from './program.js';

/** What the worker is asked to run: the evaluation, the workflow's script.js (if any) and the limits. */
export interface Job {
  evaluation: Evaluation;
  script: string | null;
  limits: SandboxLimits;
}

/** A job's result, and whether the QuickJS module should be replaced before the next one (it may be damaged). */
export interface JobOutcome {
  result: EvaluationResult;
  damaged: boolean;
}

/**
 * Runs one evaluation in a fresh guest context, bounded by the interrupt deadline. The context is taken
 * only once the code is known to be runnable; the caller closes it (after answering), so nothing carries
 * over between evaluations. Never throws.
 */
export function runJob(job: Job, take: () => GuestContext): JobOutcome {
  const { evaluation, limits } = job;
  const prepared = prepareProgram(evaluation, job.script, limits);
  if (!prepared.ok) return { result: { ok: false, error: oneLine(prepared.error) }, damaged: false };
  let scopeJson: string;
  try {
    scopeJson = JSON.stringify(evaluation.scope);
  } catch (error) {
    return { result: { ok: false, error: oneLine(`the scope is not JSON: ${String(error)}`) }, damaged: false };
  }
  try {
    const guest = take();
    guest.runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + limits.timeoutMs));
    return { result: toResult(callGuest(guest, JSON.stringify(prepared.program), scopeJson), limits), damaged: false };
  } catch (error) {
    // The host side of QuickJS failed (a leaked handle, an abort in wasm): report it and start afresh.
    const message = error instanceof Error ? error.message : String(error);
    return { result: toResult({ kind: 'thrown', label: 'sandbox', name: 'InternalError', message }, limits), damaged: true };
  }
}

/** Calls the guest; a string is its JSON answer, else why it failed. */
function callGuest(guest: GuestContext, programJson: string, scopeJson: string): string | GuestFailure {
  const { context } = guest;
  const program = context.newString(programJson);
  const scope = context.newString(scopeJson);
  try {
    const answer = context.callFunction(guest.run, context.undefined, program, scope);
    if (answer.error) return errorOf(context, answer.error, whereOf(guest));
    const text = context.typeof(answer.value) === 'string' ? context.getString(answer.value) : null;
    answer.value.dispose();
    return text ?? { kind: 'thrown', label: 'sandbox', name: 'InternalError', message: 'the guest gave no answer' };
  } finally {
    scope.dispose();
    program.dispose();
  }
}

/** Which piece the guest was running when an error escaped it (read without running code, so it works after an interrupt). */
function whereOf(guest: GuestContext): { label: string; snippet: string } {
  const { context } = guest;
  const where = context.getProp(guest.run, 'where');
  const read = (key: string): string => {
    const value = context.getProp(where, key);
    const text = context.typeof(value) === 'string' ? context.getString(value) : '';
    value.dispose();
    return text;
  };
  const found = { label: read('label') || 'sandbox', snippet: read('snippet') };
  where.dispose();
  return found;
}

function errorOf(context: QuickJSContext, handle: QuickJSHandle, where: { label: string; snippet: string }): GuestFailure {
  const read = (key: string): string => {
    try {
      const value = context.getProp(handle, key);
      const text = context.typeof(value) === 'string' ? context.getString(value) : '';
      value.dispose();
      return text;
    } catch {
      // A getter on a thrown object that fails again (or is interrupted): the error stays unnamed.
      return '';
    }
  };
  const failure: GuestFailure = { kind: 'thrown', ...where, name: read('name') || 'Error', message: read('message') || 'unknown error' };
  handle.dispose();
  return failure;
}

function toResult(output: string | GuestFailure, limits: SandboxLimits): EvaluationResult {
  if (typeof output !== 'string') return { ok: false, error: failureMessage(output, limits) };
  if (output.length > limits.maxResultBytes) {
    return { ok: false, error: `common_data and the value are too large to keep (${sizeText(output.length)}; at most ${sizeText(limits.maxResultBytes)})` };
  }
  // The answer wraps common_data and the value in one more object.
  if (jsonDepth(output) > MAX_JSON_DEPTH + 1) {
    return { ok: false, error: `common_data or the value nests deeper than ${MAX_JSON_DEPTH} levels: keep workflow data flatter` };
  }
  const parsed = JSON.parse(output) as EvaluationResult | { ok: false; failure: GuestFailure };
  if (parsed.ok) return parsed;
  return 'failure' in parsed ? { ok: false, error: failureMessage(parsed.failure, limits) } : parsed;
}
