import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import { failureMessage, oneLine, sizeText } from './failure.js';
import type { GuestContext } from './guest-context.js';
import { jsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
import { STEPS_PER_INTERRUPT, type GuestFailure, type SandboxLimits } from './program.js';

/** A program of a job (JSON), the part it follows (-1: none) and the state that part must choose for it to run (null: any). */
export interface JobPart {
  program: string;
  after: number;
  target: string | null;
}

/** What a worker is asked to run: prepared programs against one scope, in the context of one session. */
export interface Job {
  /** Whose context it runs in (contexts are never shared between sessions). */
  session: string;
  /** The first program, then what may follow it: each runs when the one it follows succeeded (and chose its target). */
  parts: JobPart[];
  /** The part of the scope the code reads, as JSON (its contexts by the length of their text only). */
  scope: string;
  /** The contexts' messages as JSON by name (absent or null: none), sent into the guest only for code that reads them. */
  messages?: string | null;
  /** The workflow's script.js, when a piece is a handler (compiled once per context, by its hash). */
  script: { hash: string; source: string } | null;
  limits: SandboxLimits;
}

/** A job's result as EvaluationResult JSON; whether its context may serve the session again; whether the module must be replaced. */
export interface JobOutcome {
  result: string;
  keep: boolean;
  damaged: boolean;
}

// Steps (in interrupt calls) a thrown value's name and message getters may take before they read as empty.
const READ_ERROR_INTERRUPTS = 100;

type PartOutcome = { ok: boolean; json: string; clean: boolean; changed: boolean; chosen: string; damaged: boolean };

/**
 * Runs a job's parts in the session's context, each bounded by the step limit: the first, then the part
 * that follows it (for the state it chose), and so on. A part runs only when the one before succeeded
 * without replacing a context's messages (messages it only added, within max_length, the next part sees
 * as the engine will: appended) and left the global object clean; each result goes in the one before's
 * `next`. A context is kept only when everything succeeded and was swept clean. Never throws.
 */
export function runJob(job: Job, guest: GuestContext): JobOutcome {
  const results: string[] = [];
  let at = 0;
  let last: PartOutcome;
  for (;;) {
    last = runPart(job, at, guest);
    results.push(last.json);
    const from = at;
    const outcome = last;
    at = outcome.ok && outcome.clean && !outcome.changed ? job.parts.findIndex((p) => p.after === from && (p.target === null || p.target === outcome.chosen)) : -1;
    if (at === -1) break;
  }
  const result = results.reduceRight((inner, outer) => `${outer.slice(0, -1)},"next":${inner}}`);
  return { result, keep: last.ok && last.clean, damaged: last.damaged };
}

function runPart(job: Job, index: number, guest: GuestContext): PartOutcome {
  const { limits, script } = job;
  const failed = (error: string, damaged = false): PartOutcome => ({ ok: false, json: JSON.stringify({ ok: false, error: oneLine(error) }), clean: false, changed: false, chosen: '', damaged });
  const source = script && !guest.scripts.has(script.hash) ? script.source : null;
  guest.steps.calls = 0;
  guest.steps.max = Math.ceil(limits.maxSteps / STEPS_PER_INTERRUPT);
  const { program } = job.parts[index]!;
  const id = programId(program);
  let output: string | GuestFailure;
  try {
    // The program's JSON when the guest does not have it ('n'); the messages when the code reads them ('m': it
    // stopped at the first read, and runs again with them; the program is remembered as one that reads them).
    let programJson = guest.programs.has(id) ? null : program;
    const all = job.messages ?? null;
    let messages = guest.readers.has(id) ? all : null;
    for (;;) {
      output = callGuest(guest, id, programJson, job.scope, source, messages);
      if (output === 'n' && programJson === null) programJson = program;
      else if (output === 'm' && messages === null && all !== null) {
        guest.readers.add(id);
        messages = all;
      } else break;
    }
  } catch (error) {
    // The host side of QuickJS failed (a leaked handle, an abort in wasm): report it and start afresh.
    const message = error instanceof Error ? error.message : String(error);
    return failed(failureMessage({ kind: 'thrown', label: 'sandbox', name: 'InternalError', message }, limits), true);
  } finally {
    guest.steps.max = Number.POSITIVE_INFINITY;
  }
  if (typeof output !== 'string') return failed(failureMessage(output, limits));
  if (output === 'n' || output === 'm') return failed(`the sandbox asked for ${output === 'n' ? 'a program' : "contexts' messages"} it was already sent`, true);
  const header = output.indexOf('\n');
  const body = output.slice(header + 1);
  if (body.length > limits.maxResultBytes) return failed(`common_data and the value are too large to keep (${sizeText(body.length)}; at most ${sizeText(limits.maxResultBytes)})`);
  // The answer wraps common_data and the value in one more object.
  if (jsonDepth(body) > MAX_JSON_DEPTH + 1) return failed(`common_data or the value nests deeper than ${MAX_JSON_DEPTH} levels: keep workflow data flatter`);
  if (!body.startsWith('{"ok":true')) return failed(failureMessage((JSON.parse(body) as { failure: GuestFailure }).failure, limits));
  if (script) guest.scripts.add(script.hash);
  guest.programs.add(id);
  return { ok: true, json: body, clean: output[0] === 'c', changed: output[1] === '1', chosen: JSON.parse(output.slice(2, header)) as string, damaged: false };
}

// Programs by their JSON, numbered once per thread; never reused, so no context mistakes one program for another.
// Bounded in count and in text kept (a program may carry 256 KiB of code): past either, numbering starts over.
const PROGRAM_IDS = new Map<string, number>();
const MAX_PROGRAMS = 4096;
const MAX_PROGRAM_CHARS = 16 * 1024 * 1024;
let programChars = 0;
let lastProgramId = 0;

function programId(json: string): number {
  let id = PROGRAM_IDS.get(json);
  if (id === undefined) {
    if (PROGRAM_IDS.size >= MAX_PROGRAMS || programChars + json.length > MAX_PROGRAM_CHARS) {
      PROGRAM_IDS.clear();
      programChars = 0;
    }
    id = ++lastProgramId;
    PROGRAM_IDS.set(json, id);
    programChars += json.length;
  }
  return id;
}

/** Calls the guest; a string is its answer (header and JSON, or `n`: it needs the program's JSON), else why it failed. */
function callGuest(guest: GuestContext, id: number, programJson: string | null, scopeJson: string, scriptSource: string | null, messagesJson: string | null): string | GuestFailure {
  const { context } = guest;
  const args = [
    context.newNumber(id),
    programJson === null ? context.null : context.newString(programJson),
    context.newString(scopeJson),
    scriptSource === null ? context.null : context.newString(scriptSource),
    messagesJson === null ? context.null : context.newString(messagesJson),
  ];
  try {
    const answer = context.callFunction(guest.run, context.undefined, ...args);
    if (answer.error) {
      // Reading the error may run a getter: a fresh, small budget, so an interrupt's own error can be read.
      guest.steps.calls = 0;
      guest.steps.max = READ_ERROR_INTERRUPTS;
      return errorOf(context, answer.error, whereOf(guest));
    }
    const text = context.typeof(answer.value) === 'string' ? context.getString(answer.value) : null;
    answer.value.dispose();
    return text ?? { kind: 'thrown', label: 'sandbox', name: 'InternalError', message: 'the guest gave no answer' };
  } finally {
    for (const arg of args) arg.dispose();
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
