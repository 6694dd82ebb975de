import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import { failureMessage, oneLine, sizeText } from './failure.js';
import type { GuestContext } from './guest-context.js';
import { messagesDelta, type HeldLists } from './kept-messages.js';
import { jsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
import { STEPS_PER_INTERRUPT, type GuestFailure, type SandboxLimits } from './program.js';
import type { WireList } from './wire-contexts.js';

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
  /** The part of the scope the code reads, as JSON (its contexts by the length of their text only); with `kept`, the fields not in it. */
  scope: string;
  /**
   * The fields of the scope code only reads copies of (see KEPT_SCOPE_FIELDS), each as JSON, by name: the guest
   * keeps them between jobs and is sent only those that changed. Absent: the whole scope is in `scope`.
   */
  kept?: Record<string, string>;
  /**
   * Each context's messages by name (absent or null: none), sent into the guest only for code that reads them, as
   * what changed since the lists the guest holds (see kept-messages.ts).
   */
  lists?: Readonly<Record<string, WireList>> | null;
  /** Without `lists`: the contexts' messages as one JSON object by name, sent whole to code that reads them. */
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

type PartOutcome = { ok: boolean; json: string; clean: boolean; changed: boolean; chosen: string };

/**
 * Runs a job's parts in the session's context, in one call into the guest, each part bounded by the step limit
 * (the interrupt handler starts a part's count when the guest moves to it): the first, then the part that
 * follows it (for the state it chose), and so on. A part runs only when the one before succeeded without
 * replacing a context's messages (messages it only added, past max_length too, the next part sees as the engine
 * will: appended) and left the global object clean; each result goes in the one before's `next`. The host
 * checks each part's answer (size, depth) as it did when it called the guest once per part: the chain ends at
 * the first that fails them. A context is kept only when everything succeeded and was swept clean. Never throws.
 */
export function runJob(job: Job, guest: GuestContext): JobOutcome {
  const { limits, script } = job;
  const source = script && !guest.scripts.has(script.hash) ? script.source : null;
  const { steps } = guest;
  steps.calls = 0;
  steps.part = 0;
  steps.max = Math.ceil(limits.maxSteps / STEPS_PER_INTERRUPT);
  const id = jobId(job.parts);
  let output: string | GuestFailure;
  let done = { answers: '', part: 0 };
  const kept = job.kept ? keptDelta(guest.held, job.kept) : null;
  // Unknown until the guest answers: a call that fails may have stopped before or after it took the fields.
  guest.held = null;
  let lists = guest.lists;
  guest.lists = null;
  try {
    // The job's JSON when the guest does not have it ('n'); the messages when the code reads them ('m': it
    // stopped at the first read, and the job runs again with them; it is remembered as one that reads them).
    let jobJson = guest.jobs.has(id) ? null : jobJsonOf(job.parts);
    const sendable = (job.lists ?? job.messages ?? null) !== null;
    let send = sendable && guest.readers.has(id);
    for (;;) {
      const messages = send ? messagesFor(job, lists) : null;
      ({ output, done } = callGuest(guest, id, jobJson, job.scope, source, messages === null ? null : messages.json, kept === null ? null : kept.json));
      // The guest took the messages before anything else: it holds them now, whatever it answers.
      if (messages !== null && typeof output === 'string') lists = messages.held;
      if (output === 'n' && jobJson === null) jobJson = jobJsonOf(job.parts);
      else if (output === 'm' && !send && sendable) {
        guest.readers.add(id);
        send = true;
      } else break;
    }
    if (kept !== null && typeof output === 'string') guest.held = kept.held;
    if (typeof output === 'string') guest.lists = lists;
  } catch (error) {
    // The host side of QuickJS failed (a leaked handle, an abort in wasm): report it and start afresh.
    const message = error instanceof Error ? error.message : String(error);
    return { result: failed(failureMessage({ kind: 'thrown', label: 'sandbox', name: 'InternalError', message }, limits)), keep: false, damaged: true };
  } finally {
    steps.max = Number.POSITIVE_INFINITY;
  }
  if (output === 'n' || output === 'm') return { result: failed(`the sandbox asked for ${output === 'n' ? 'a program' : "contexts' messages"} it was already sent`), keep: false, damaged: true };
  // The parts that ended, each as its length, ':' and its answer, in the order the host's own reading of the chain
  // gives (the part that follows one for the state it chose). An error that escaped the guest is the part's it
  // was running: the one after the last answer, or the last if it escaped as that part ended.
  const results: string[] = [];
  let last: PartOutcome | null = null;
  let lastIndex = -1;
  let next = 0;
  const answers = typeof output === 'string' ? output : done.answers;
  for (let at = 0; at < answers.length && next !== -1; ) {
    const colon = answers.indexOf(':', at);
    const length = Number(answers.slice(at, colon));
    last = partOutcome(answers.slice(colon + 1, colon + 1 + length), limits);
    at = colon + 1 + length;
    results.push(last.json);
    lastIndex = next;
    const { chosen } = last;
    next = last.ok && last.clean && !last.changed ? job.parts.findIndex((p) => p.after === lastIndex && (p.target === null || p.target === chosen)) : -1;
  }
  if (typeof output !== 'string') {
    const failure = { ok: false, json: failed(failureMessage(output, limits)), clean: false, changed: false, chosen: '' };
    if (last !== null && done.part === lastIndex) results[results.length - 1] = failure.json;
    else results.push(failure.json);
    last = failure;
  }
  if (last === null) return { result: failed('the guest gave no answer'), keep: false, damaged: true };
  const result = results.reduceRight((inner, outer) => `${outer.slice(0, -1)},"next":${inner}}`);
  if (script && last.ok) guest.scripts.add(script.hash);
  guest.jobs.add(id);
  return { result, keep: last.ok && last.clean, damaged: false };
}

function failed(error: string): string {
  return JSON.stringify({ ok: false, error: oneLine(error) });
}

// One part's answer (header, line break, JSON) checked as the engine will take it.
function partOutcome(answer: string, limits: SandboxLimits): PartOutcome {
  const header = answer.indexOf('\n');
  const body = answer.slice(header + 1);
  const fail = (error: string): PartOutcome => ({ ok: false, json: failed(error), clean: false, changed: false, chosen: '' });
  if (body.length > limits.maxResultBytes) return fail(`common_data and the value are too large to keep (${sizeText(body.length)}; at most ${sizeText(limits.maxResultBytes)})`);
  // The answer wraps common_data and the value in one more object.
  if (jsonDepth(body) > MAX_JSON_DEPTH + 1) return fail(`common_data or the value nests deeper than ${MAX_JSON_DEPTH} levels: keep workflow data flatter`);
  if (!body.startsWith('{"ok":true')) return fail(failureMessage((JSON.parse(body) as { failure: GuestFailure }).failure, limits));
  return { ok: true, json: body, clean: answer[0] === 'c', changed: answer[1] === '1', chosen: JSON.parse(answer.slice(2, header)) as string };
}

// Jobs by their parts, numbered once per thread; never reused, so no context mistakes one job for another. The
// parts of a prepared evaluation are the same array each time on the thread that prepares it (no key to build);
// a job sent to a worker comes as a copy, found by its text. Bounded in count and in text kept (a program may
// carry 256 KiB of code): past either, numbering starts over.
const JOB_IDS = new Map<string, number>();
const BY_PARTS = new WeakMap<JobPart[], number>();
const MAX_JOBS = 4096;
const MAX_JOB_CHARS = 16 * 1024 * 1024;
let jobChars = 0;
let lastJobId = 0;

function jobId(parts: JobPart[]): number {
  let id = BY_PARTS.get(parts);
  if (id !== undefined) return id;
  const key = parts.map((p) => `${p.after},${p.target === null ? -1 : `${p.target.length}:${p.target}`},${p.program.length}:${p.program}`).join(';');
  id = JOB_IDS.get(key);
  if (id === undefined) {
    if (JOB_IDS.size >= MAX_JOBS || jobChars + key.length > MAX_JOB_CHARS) {
      JOB_IDS.clear();
      jobChars = 0;
    }
    id = ++lastJobId;
    JOB_IDS.set(key, id);
    jobChars += key.length;
  }
  BY_PARTS.set(parts, id);
  return id;
}

// What the guest keeps of a job: [[after, target, program], ...] (the programs are JSON already).
function jobJsonOf(parts: JobPart[]): string {
  return `[${parts.map((p) => `[${p.after},${JSON.stringify(p.target)},${p.program}]`).join(',')}]`;
}

/**
 * What to send the guest of the fields it keeps: those that differ from what it holds (a JSON object; '' when none
 * do), or all of them after '=' when it holds none or another set of names; and what it holds once it took them.
 */
function keptDelta(held: ReadonlyMap<string, string> | null, kept: Record<string, string>): { json: string; held: Map<string, string> } {
  let changed = '';
  let count = 0;
  let whole = held === null;
  for (const name in kept) {
    count += 1;
    if (whole) continue;
    const now = held!.get(name);
    if (now === undefined) whole = true;
    else if (now !== kept[name]) changed += `,${JSON.stringify(name)}:${kept[name]}`;
  }
  if (whole || count !== held!.size) {
    let all = '';
    for (const name in kept) all += `,${JSON.stringify(name)}:${kept[name]}`;
    return { json: `={${all.slice(1)}}`, held: new Map(Object.entries(kept)) };
  }
  if (changed === '') return { json: '', held: held as Map<string, string> };
  const next = new Map(held);
  for (const name in kept) next.set(name, kept[name]!);
  return { json: `{${changed.slice(1)}}`, held: next };
}

/** The messages to send the guest for a job (what changed since the lists it holds), and the lists it then holds (null: not known, after whole ones without their bounds). */
function messagesFor(job: Job, held: HeldLists | null): { json: string; held: HeldLists | null } {
  if (job.lists) return messagesDelta(held, job.lists);
  return { json: job.messages!, held: null };
}

/** Calls the guest: its answer (the parts' answers, or `n`/`m`), or why it failed and the answers of the parts that ended before. */
function callGuest(
  guest: GuestContext,
  id: number,
  jobJson: string | null,
  scopeJson: string,
  scriptSource: string | null,
  messagesJson: string | null,
  keptJson: string | null,
): { output: string | GuestFailure; done: { answers: string; part: number } } {
  const { context } = guest;
  const args = [
    context.newNumber(id),
    jobJson === null ? context.null : context.newString(jobJson),
    context.newString(scopeJson),
    scriptSource === null ? context.null : context.newString(scriptSource),
    messagesJson === null ? context.null : context.newString(messagesJson),
    // Most jobs change none of the kept fields: undefined, no string to make.
    keptJson === null ? context.null : keptJson === '' ? context.undefined : context.newString(keptJson),
  ];
  try {
    const answer = context.callFunction(guest.run, context.undefined, ...args);
    if (answer.error) {
      // Reading the error may run a getter: a fresh, small budget, so an interrupt's own error can be read.
      guest.steps.calls = 0;
      guest.steps.max = READ_ERROR_INTERRUPTS;
      const where = whereOf(guest);
      return { output: errorOf(context, answer.error, { label: where.label, snippet: where.snippet }), done: { answers: where.done, part: where.part } };
    }
    const text = context.typeof(answer.value) === 'string' ? context.getString(answer.value) : null;
    answer.value.dispose();
    return { output: text ?? { kind: 'thrown', label: 'sandbox', name: 'InternalError', message: 'the guest gave no answer' }, done: { answers: '', part: 0 } };
  } finally {
    for (const arg of args) arg.dispose();
  }
}

/** Which piece the guest was running when an error escaped it (read without running code, so it works after an interrupt). */
function whereOf(guest: GuestContext): { label: string; snippet: string; done: string; part: number } {
  const { context } = guest;
  const where = context.getProp(guest.run, 'where');
  const read = (key: string): string => {
    const value = context.getProp(where, key);
    const text = context.typeof(value) === 'string' ? context.getString(value) : '';
    value.dispose();
    return text;
  };
  const part = context.getProp(where, 'part');
  const at = context.typeof(part) === 'number' ? context.getNumber(part) : 0;
  part.dispose();
  const found = { label: read('label') || 'sandbox', snippet: read('snippet'), done: read('done'), part: at };
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
