import { GUEST_HARDEN } from './guest-harden.js';
import { MAX_JSON_DEPTH } from './json-depth.js';

/** The free names workflow code reads its scope by (the parameters of every compiled piece). */
export const GUEST_SCOPE_NAMES = ['common_data', 'variables', 'input', 'last_agent_response', 'last_tool_calls', 'last_parsing_tool_calls', 'sub_workflow_result', 'last_error', '__troupe_tool'];

/**
 * The guest runtime: JavaScript that runs inside QuickJS (never in the host). Evaluated once per context
 * as a function of `sources` (its other parts, GUEST_MODULES, as text), it hardens the context (see
 * GUEST_HARDEN) and returns `run(jobId, jobJson, scopeJson, scriptSource, messagesJson, keptJson) -> answers` to the host (`n`:
 * send the job's JSON; `m`: send the contexts' messages, which it keeps between jobs: see kept-messages.ts). `run` runs a job's parts in turn; for each it builds the
 * `this` of workflow code from the scope, compiles every piece first (a broken condition fails every time, not
 * only when reached), runs them and answers common_data, the value, console lines and changed contexts, or a
 * GuestFailure, as JSON after a header: `c`/`d` (the global object is clean again, or could not be swept),
 * `0`/`1`/`2` (code changed no context, replaced a context's messages, or only added some), the state the code
 * chose (transitions, a transition handler) as a JSON string, and a line break (JSON has none of its own). The
 * answers come one after another, each after its length and a colon.
 *
 * A context serves many evaluations of one session: compiled pieces and script.js are kept (frozen, and
 * run afresh each time, so no closure or top-level variable carries over); everything else an evaluation
 * makes is dropped when it ends. No host function is reachable from the guest.
 */
export const GUEST_CORE = `(function (sources) {
'use strict';
var G = globalThis, parse = JSON.parse, stringify = JSON.stringify, keys = Object.keys, define = Object.defineProperty, freeze = Object.freeze;
var getProto = Object.getPrototypeOf, getOwn = Reflect.getOwnPropertyDescriptor, ownKeys = Reflect.ownKeys, remove = Reflect.deleteProperty, isExtensible = Object.isExtensible;
var OP = Object.prototype, AP = Array.prototype, SP = String.prototype, valueOfString = String.prototype.valueOf, apply = Reflect.apply, F = Function, create = Object.create;
var where = { label: '', snippet: '', part: 0, done: '' }, state = { logs: [], dropped: 0, changed: create(null), anyChanged: false, messages: null, wanted: false, base: null, added: null, lists: false }, loaded = create(null), core;
var compiled = new Map(), scripts = new Map(), jobs = new Map(), current = null, currentScope = null, lastCommonData = '{}', lastAdded = null, chosen = '', defineAll = Object.defineProperties;
// The scope fields kept between jobs (see KEPT_SCOPE_FIELDS), parsed once when the host sends them changed; null: none
// (a job sent whole). Code never sees these objects, only what is built from them afresh for each part.
var held = null;
// Each context's messages as the host last sent them, by name (see kept-messages.ts): frozen, and never given to
// code, which reads copies made afresh for each part. The host knows what is here; a job changes it only when
// code reads messages, by the difference from what is here.
var heldMessages = create(null);
var NAMES = ${JSON.stringify(GUEST_SCOPE_NAMES)};
// Built when code first reads them (from the 'methods' module); free names reach them through globals.
// The first DATA of them are data (enumerable), the rest methods and aliases.
var LAZY = ['contexts', 'agents', 'workflow_contexts', 'getAgent', 'getToolCalls', 'getContext', 'evaluateExpression', 'context', 'last_response'], DATA = 3;
${GUEST_HARDEN}
function need(name) { return loaded[name] || (loaded[name] = harden(apply(F, null, ['core', sources[name]])(core))); }
function Fail(info) { this.info = info; }
function fail(kind, piece, message) { return new Fail({ kind: kind, label: piece.label, snippet: piece.snippet, message: message }); }
function thrown(e, piece) { return need('errors').thrown(e, piece); }
function hide(o, k, v) { define(o, k, { value: v, writable: true, configurable: true }); }
// What a context keeps: frozen, so code cannot leave anything on it (and a full cache starts over).
function keep(cache, key, fn) { if (cache.size >= 256) cache.clear(); cache.set(key, harden(fn)); return fn; }
function toolCall(c) {
  var a = c.arguments;
  if (typeof a === 'string') { try { a = parse(a); } catch (e) { /* kept as text */ } }
  // Arguments given as data: a copy, since the call may come from a scope field kept between jobs.
  else if (a !== null && typeof a === 'object') a = parse(stringify(a));
  return { name: c.name, arguments: a, function: { name: c.name, arguments: a } };
}
// this.input: the workflow's input as given (a String, so it reads as the text), carrying its value under the input's name (seed 001's this.input.task_description).
function workflowInput(scope) {
  var wi = scope.workflow_input;
  if (!wi) return scope.input;
  var s = new String(wi.text);
  if (typeof wi.name === 'string' && wi.name !== 'length' && !/^[0-9]+$/.test(wi.name)) define(s, wi.name, { value: wi.value, writable: true, enumerable: true, configurable: true });
  return s;
}
// this.variables is this.common_data (SynthDev's name). One frozen accessor for every evaluation, reading its
// object through \`this\`: a getter closing over the object would make a cycle (object, accessor, closure),
// which QuickJS's reference counting cannot free, so each evaluation's data would wait for its cycle collector.
var VARIABLES = { get: function () { return this.common_data; }, set: function (v) { this.common_data = v; }, enumerable: true };
// The tool-call shorthand's lookup (see shorthand.ts): one function for every part, reading the tool calls of the part running now.
var currentCalls = null, TOOL = { value: function (n) { var calls = currentCalls || []; for (var i = calls.length - 1; i >= 0; i--) if (calls[i].name === n) return calls[i]; }, writable: true, configurable: true };
// scope: the fields parsed for this part (common_data, input, ...); kept: those only copied from (the same object for a job sent whole).
function build(scope, kept, reach) {
  var self = { common_data: scope.common_data, input: workflowInput(scope), last_agent_response: kept.last_agent_response }, calls = (kept.last_tool_calls || []).map(toolCall);
  // The free name input in expressions is the state's evaluated input.
  hide(self, '__troupe_input', scope.input);
  define(self, 'variables', VARIABLES);
  self.last_tool_calls = self.last_parsing_tool_calls = calls;
  self.sub_workflow_result = scope.sub_workflow_result;
  // The failure an error handler decides about (seed 001's this.last_error).
  if (scope.last_error !== undefined) self.last_error = scope.last_error;
  currentCalls = calls;
  define(self, '__troupe_tool', TOOL);
  defineAll(self, lazyProps(reach));
  return self;
}
// One accessor per lazy name, made once: read on this evaluation's this, it builds the value from the scope and keeps it there.
var LAZY_PROPS = create(null), LAZY_FIELD = { contexts: 'contexts', workflow_contexts: 'contexts', getContext: 'contexts', context: 'contexts', agents: 'agents', getAgent: 'agents', getToolCalls: 'agents', last_response: 'last_response' }, lazySets = new WeakMap(), ALL_LAZY = null;
// The accessors of the names the job's code can reach (program.reach: the scope fields a scan found it naming; absent: all). Code
// that names none of a field's names, nor reaches this reflectively, cannot tell them missing; defining fewer is cheaper.
// By the program's own reach array (a kept program is the same object every time).
function lazyProps(reach) {
  var props = reach ? lazySets.get(reach) : ALL_LAZY;
  if (props) return props;
  props = create(null);
  LAZY.forEach(function (k) { if (!reach || reach.indexOf(LAZY_FIELD[k]) !== -1) props[k] = LAZY_PROPS[k]; });
  harden(props);
  if (reach) lazySets.set(reach, props);
  else ALL_LAZY = props;
  return props;
}
LAZY.forEach(function (k, i) {
  // contexts and agents are data (enumerable); the rest are methods and seed 001's aliases.
  var set = function (v) { define(this, k, { value: v, writable: true, enumerable: i < DATA, configurable: true }); return v; };
  LAZY_PROPS[k] = { get: function () { return apply(set, this, [need('methods')[k](this, currentScope)]); }, set: set, enumerable: i < DATA, configurable: true };
});
function argsOf(s) {
  return [s.common_data, s.common_data, s.__troupe_input, s.last_agent_response, s.last_tool_calls, s.last_parsing_tool_calls, s.sub_workflow_result, s.last_error, s.__troupe_tool];
}
function compileBody(body) { return apply(F, null, NAMES.concat([body])); }
function compile(p) {
  if (p.kind !== 'body') return null;
  var fn = compiled.get(p.body);
  if (fn) return fn;
  try { fn = compileBody(p.body); } catch (e) {
    if (p.fallback === undefined) throw thrown(e, p);
    try { fn = compileBody(p.fallback); } catch (x) { throw thrown(e, p); /* the first error is the one to tell */ }
  }
  return keep(compiled, p.body, fn);
}
function runPiece(p, fn, script, self) {
  where.label = p.label;
  where.snippet = p.snippet;
  if (p.kind === 'template') return need('template').render(p, self);
  var args;
  // A handler gets this alone; a body its free names.
  if (p.kind === 'handler') { fn = need('script').handler(script, p); args = [self]; }
  else args = argsOf(self);
  try { return apply(fn, self, args); } catch (e) { throw thrown(e, p); }
}
// JSON.stringify throws on cycles and BigInt; this catches what it would silently drop or mangle, and
// nesting past what the host takes (QuickJS's stringify checks cycles in time growing with the square of
// the depth, where the step count cannot see it, and recurses without a stack check).
var depths = null, TOO_DEEP = new Fail(null);
function replacer(k, v) {
  var t = typeof v, p, d;
  if (t === 'function' || t === 'symbol' || k === '__proto__') throw new Fail(null);
  if (t === 'object' && v !== null) {
    // A String (this.input, this.last_response) kept in data is its text.
    if ((p = getProto(v)) === SP) return apply(valueOfString, v, []);
    if (p !== OP && p !== AP && p !== null) throw new Fail(null);
    if ((d = (depths.get(this) || 0) + 1) > ${MAX_JSON_DEPTH}) throw TOO_DEEP;
    depths.set(v, d);
  }
  return v;
}
function json(v, path, piece) {
  if (v === undefined) return undefined;
  // A string, number, boolean or null: what the replacer would let through as it is, without its Map.
  var t = typeof v;
  if (v === null || t === 'string' || t === 'number' || t === 'boolean') return stringify(v);
  depths = new Map();
  try { return stringify(v, replacer); } catch (e) {
    if (e === TOO_DEEP) throw fail('problem', piece, path + ' nests deeper than ${MAX_JSON_DEPTH} levels: keep workflow data flatter');
    throw fail('problem', piece, need('errors').notJson(v, path, e));
  } finally { depths = null; }
}
function execute(program, self, source) {
  var script = program.script ? need('script').load(program.script, self, source) : null, v;
  if (program.mode === 'code') {
    v = runPiece(program.code, compile(program.code), script, self);
    if (program.decides && typeof v === 'string') chosen = v;
    return json(v, 'its value', program.code);
  }
  if (program.mode === 'fields') return need('fields').run(program, script, self);
  var ts = program.transitions, compiledTs = ts.map(function (t) { return [t.condition && compile(t.condition), t.before && compile(t.before)]; });
  for (var i = 0; i < ts.length; i++) {
    var c = ts[i].condition, holds = c ? runPiece(c, compiledTs[i][0], script, self) : true;
    if (holds !== true && holds !== false) throw fail('problem', c, 'condition must be true or false, got ' + need('errors').describe(holds));
    if (holds) { if (ts[i].before) runPiece(ts[i].before, compiledTs[i][1], script, self); chosen = ts[i].target || ''; return String(i); }
  }
  return '-1';
}
function finish(self, value) {
  var cd = self.common_data, piece = { label: 'common_data' }, out = '{"ok":true,"common_data":';
  where.label = 'common_data';
  where.snippet = '';
  if (cd === null || typeof cd !== 'object' || Array.isArray(cd)) throw fail('problem', piece, 'common_data must stay an object, got ' + need('errors').describe(cd));
  lastCommonData = json(cd, 'common_data', piece);
  out += lastCommonData;
  if (value !== undefined) out += ',"value":' + value;
  if (state.dropped > 0) state.logs.push('(' + state.dropped + ' more console lines not kept)');
  if (state.logs.length > 0) out += ',"logs":' + stringify(state.logs);
  if (state.anyChanged) out += need('contexts').changed(self, state.changed);
  // For a part chained after this one: the messages added so far in this job, to contexts it sees as the engine will.
  lastAdded = state.lists ? null : state.added || state.base;
  return out + '}';
}
core = { G: G, need: need, Fail: Fail, fail: fail, hide: hide, keep: keep, scripts: scripts, toolCall: toolCall, state: state, where: where, apply: apply, keys: keys,
  stringify: stringify, compileBody: compileBody, argsOf: argsOf, compile: compile, runPiece: runPiece, json: json };
LAZY.forEach(function (k) { define(G, k, { get: function () { return current === null ? undefined : current[k]; } }); });
define(G, 'console', { get: function () { return need('console'); } });
// Frozen after the realm (hardening it first turns the names code overrides into accessors).
hardenRealm();
harden(Fail);
harden(LAZY_PROPS);
harden(VARIABLES);
harden(TOOL);
// One part of a job: its answer after a header (see GUEST_CORE), or 'm' (it read contexts' messages that were not sent).
// messages: the contexts' messages by name (parsed once per job), or null when they were not sent.
function runPart(program, scopeJson, scriptSource, messages, kept) {
  var answer;
  state.logs = [];
  state.dropped = 0;
  state.changed = create(null);
  state.anyChanged = false;
  state.messages = null;
  state.wanted = false;
  state.lists = false;
  state.added = null;
  // A part chained after another sees the messages that one added (the engine appends them before it asks for this part).
  state.base = program.chained ? lastAdded : null;
  lastAdded = null;
  where.label = '';
  where.snippet = '';
  chosen = '';
  try {
    var scope = parse(scopeJson);
    currentScope = kept || scope;
    state.messages = messages;
    state.maxLines = program.maxLogLines;
    state.maxChars = program.maxLogChars;
    if (program.chained) scope.common_data = parse(lastCommonData);
    if (program.freshInput) scope.input = null;
    var self = current = build(scope, currentScope, program.reach);
    answer = finish(self, execute(program, self, scriptSource));
  } catch (e) {
    answer = stringify({ ok: false, failure: e instanceof Fail ? e.info : thrown(e, { label: where.label || 'sandbox', snippet: where.snippet }).info });
  }
  current = currentScope = currentCalls = null;
  state.messages = state.base = state.added = null;
  // The code read a context's messages, which were not sent: whatever it did since (it may have caught the
  // error) is dropped, and the host runs the job again with them.
  if (state.wanted) {
    sweep();
    return 'm';
  }
  // 1: code replaced a context's messages (the next part must wait for the engine); 2: it only added messages; 0: neither.
  return (sweep() ? 'c' : 'd') + (!state.anyChanged ? '0' : state.lists ? '1' : '2') + (chosen === '' ? '""' : stringify(chosen)) + '\\n' + answer;
}
// First thing in a job, before any workflow code runs (the host counts on it: what it sent is what is kept).
function keepFields(keptJson) {
  var all = keptJson.charCodeAt(0) === 61, given;
  if (all) { held = create(null); keptJson = keptJson.slice(1); }
  if (keptJson === '') return;
  given = parse(keptJson);
  var ks = keys(given);
  for (var i = 0; i < ks.length; i++) held[ks[i]] = given[ks[i]];
}
// The messages sent with a job, before any workflow code runs: for each context named, its whole list, or
// [keep, upTo, [added...]] (drop the held messages from keep up to upTo, then append those added).
function keepMessages(messagesJson) {
  var given = parse(messagesJson), ks = keys(given), i, j, d, list;
  for (i = 0; i < ks.length; i++) {
    d = given[ks[i]];
    if (typeof d[0] === 'number') {
      list = heldMessages[ks[i]];
      list.splice(d[0], d[1] - d[0]);
      for (j = 0; j < d[2].length; j++) list.push(freeze(d[2][j]));
    } else {
      for (j = 0; j < d.length; j++) freeze(d[j]);
      heldMessages[ks[i]] = d;
    }
  }
}
// The host keeps this function (and reads run.where after an error escapes); nothing of it is on globalThis.
// A job's parts in one call: the first, then the part that follows it for the state it chose, and so on, while
// each succeeds, leaves the global object clean and replaces no context's messages. The job comes as an id,
// with its JSON ([[after, target, program], ...]) only the first time; a context that no longer has it answers
// 'n'. Each part's answer is in where.done as it ends (the host reads what ran before an error escaped), and
// where.part says which part runs (the host's interrupt handler gives each part its own step budget).
// keptJson: null, the job's scope is all in scopeJson; else the fields kept between jobs that changed since the
// last (a JSON object; after '=', all of them, replacing what was kept; undefined: none changed), and scopeJson has the rest.
// messagesJson: null, the messages are not sent (code that reads them answers 'm'); else what changed in them (see keepMessages).
function run(jobId, jobJson, scopeJson, scriptSource, messagesJson, keptJson) {
  if (typeof keptJson === 'string') keepFields(keptJson);
  if (typeof messagesJson === 'string') keepMessages(messagesJson);
  var job = jobs.get(jobId);
  if (!job) {
    if (jobJson === null) return 'n';
    job = keep(jobs, jobId, parse(jobJson));
  }
  // Sent (brought up to date) for this job, or not: code gets copies of the messages only (see 'contexts').
  var incomingData = lastCommonData, incomingAdded = lastAdded, at = 0, out = '', answer, messages = typeof messagesJson === 'string' ? heldMessages : null;
  where.done = '';
  for (;;) {
    where.part = at;
    answer = runPart(job[at][2], scopeJson, scriptSource, messages, keptJson === null ? null : held);
    if (answer === 'm') {
      // It runs again, whole, with the messages: as it came.
      lastCommonData = incomingData;
      lastAdded = incomingAdded;
      where.done = '';
      return 'm';
    }
    out += answer.length + ':' + answer;
    where.done = out;
    // The next part runs after one that succeeded clean ('c') and replaced no context's messages (not '1').
    var nl = answer.indexOf('\\n');
    if (answer.charCodeAt(0) !== 99 || answer.charCodeAt(1) === 49 || answer.slice(nl + 1, nl + 11) !== '{"ok":true') return out;
    // Most parts choose no state: the header's '""'.
    var from = at, target = nl === 4 ? '' : parse(answer.slice(2, nl));
    at = -1;
    for (var i = 0; i < job.length; i++) if (job[i][0] === from && (job[i][1] === null || job[i][1] === target)) { at = i; break; }
    if (at === -1) return out;
  }
}
run.where = where;
return run;
})`;
