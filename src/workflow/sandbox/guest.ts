/**
 * The guest runtime: JavaScript that runs inside QuickJS (never in the host). Evaluated in a fresh context
 * as a function of `load` (which gives a module's source by name), it defines
 * `run(programJson, scopeJson) -> resultJson`, returned to the host: it builds the `this` of workflow code from the
 * scope, compiles every piece first (a broken condition fails every time, not only when reached), runs
 * them and answers common_data, the value, console lines and changed contexts, or a GuestFailure.
 *
 * Compiling guest source is most of an evaluation's cost (about 0.09 ms per KiB), so this core holds only
 * the path every evaluation takes; the rest (GUEST_MODULES) is compiled the first time code needs it.
 * Built-ins are captured before workflow code runs, so code that replaces them only hurts itself.
 */
export const GUEST_CORE = `(function (load) {
'use strict';
var G = globalThis, parse = JSON.parse, stringify = JSON.stringify, keys = Object.keys, define = Object.defineProperty;
var getProto = Object.getPrototypeOf, OP = Object.prototype, AP = Array.prototype;
var apply = Reflect.apply, F = Function, where = { label: '', snippet: '' }, state = { logs: [], dropped: 0, changed: {} }, loaded = {}, core;
var NAMES = ['common_data', 'variables', 'input', 'last_agent_response', 'last_tool_calls', 'last_parsing_tool_calls', 'sub_workflow_result', 'last_error', '__troupe_tool'];
// Built when code first reads them (from the 'methods' module); free names reach them through globals.
var LAZY = ['contexts', 'agents', 'getAgent', 'getToolCalls', 'getContext', 'evaluateExpression', 'context', 'last_response'];
function need(name) { return loaded[name] || (loaded[name] = apply(F, null, ['core', load(name)])(core)); }
function Fail(info) { this.info = info; }
function fail(kind, piece, message) { return new Fail({ kind: kind, label: piece.label, snippet: piece.snippet, message: message }); }
function thrown(e, piece) { return need('errors').thrown(e, piece); }
function hide(o, k, v) { define(o, k, { value: v, writable: true, configurable: true }); }
function toolCall(c) {
  var a = c.arguments;
  if (typeof a === 'string') { try { a = parse(a); } catch (e) { /* kept as text */ } }
  return { name: c.name, arguments: a, function: { name: c.name, arguments: a } };
}
function build(scope) {
  var self = { common_data: scope.common_data, input: scope.input, last_agent_response: scope.last_agent_response }, calls = (scope.last_tool_calls || []).map(toolCall);
  define(self, 'variables', { get: function () { return self.common_data; }, set: function (v) { self.common_data = v; }, enumerable: true });
  self.last_tool_calls = self.last_parsing_tool_calls = calls;
  self.sub_workflow_result = scope.sub_workflow_result;
  // The failure an error handler decides about (seed 001's this.last_error).
  if (scope.last_error !== undefined) self.last_error = scope.last_error;
  hide(self, '__troupe_tool', function (n) { for (var i = calls.length - 1; i >= 0; i--) if (calls[i].name === n) return calls[i]; });
  LAZY.forEach(function (k, i) {
    // contexts and agents are data (enumerable); the rest are methods and seed 001's aliases.
    var set = function (v) { define(self, k, { value: v, writable: true, enumerable: i < 2, configurable: true }); return v; };
    define(self, k, { get: function () { return set(need('methods')[k](self, scope)); }, set: set, enumerable: i < 2, configurable: true });
    define(G, k, { get: function () { return self[k]; } });
  });
  return self;
}
function argsOf(s) {
  return [s.common_data, s.common_data, s.input, s.last_agent_response, s.last_tool_calls, s.last_parsing_tool_calls, s.sub_workflow_result, s.last_error, s.__troupe_tool];
}
function compileBody(body) { return apply(F, null, NAMES.concat([body])); }
function compile(p) {
  if (p.kind !== 'body') return null;
  try { return compileBody(p.body); } catch (e) {
    if (p.fallback !== undefined) { try { return compileBody(p.fallback); } catch (x) { /* the first error is the one to tell */ } }
    throw thrown(e, p);
  }
}
function runPiece(p, fn, script, self) {
  where.label = p.label;
  where.snippet = p.snippet;
  if (p.kind === 'template') return need('template').render(p, self);
  var args = argsOf(self);
  if (p.kind === 'handler') { fn = need('script').handler(script, p); args = [self]; }
  try { return apply(fn, self, args); } catch (e) { throw thrown(e, p); }
}
// JSON.stringify throws on cycles and BigInt; this catches what it would silently drop or mangle.
function replacer(k, v) {
  var t = typeof v, p;
  if (t === 'function' || t === 'symbol' || k === '__proto__') throw new Fail(null);
  if (t === 'object' && v !== null && (p = getProto(v)) !== OP && p !== AP && p !== null) throw new Fail(null);
  return v;
}
function json(v, path, piece) {
  if (v === undefined) return undefined;
  try { return stringify(v, replacer); } catch (e) {
    throw fail('problem', piece, need('errors').notJson(v, path, e));
  }
}
function execute(program, self) {
  var script = program.script ? need('script').load(program.script, self) : null;
  if (program.mode === 'code') return json(runPiece(program.code, compile(program.code), script, self), 'its value', program.code);
  if (program.mode === 'fields') return need('fields').run(program, script, self);
  var ts = program.transitions, compiled = ts.map(function (t) { return [t.condition && compile(t.condition), t.before && compile(t.before)]; });
  for (var i = 0; i < ts.length; i++) {
    var c = ts[i].condition, holds = c ? runPiece(c, compiled[i][0], script, self) : true;
    if (holds !== true && holds !== false) throw fail('problem', c, 'condition must be true or false, got ' + need('errors').describe(holds));
    if (holds) { if (ts[i].before) runPiece(ts[i].before, compiled[i][1], script, self); return String(i); }
  }
  return '-1';
}
function finish(self, value) {
  var cd = self.common_data, piece = { label: 'common_data' }, out = '{"ok":true,"common_data":';
  where.label = 'common_data';
  where.snippet = '';
  if (cd === null || typeof cd !== 'object' || Array.isArray(cd)) throw fail('problem', piece, 'common_data must stay an object, got ' + need('errors').describe(cd));
  out += json(cd, 'common_data', piece);
  if (value !== undefined) out += ',"value":' + value;
  if (state.dropped > 0) state.logs.push('(' + state.dropped + ' more console lines not kept)');
  if (state.logs.length > 0) out += ',"logs":' + stringify(state.logs);
  if (keys(state.changed).length > 0) out += ',"contexts":' + stringify(need('contexts').changed(self, state.changed));
  return out + '}';
}
core = { G: G, need: need, Fail: Fail, fail: fail, hide: hide, toolCall: toolCall, state: state, where: where, apply: apply, keys: keys,
  stringify: stringify, compileBody: compileBody, argsOf: argsOf, compile: compile, runPiece: runPiece, json: json };
define(G, 'console', { get: function () { return need('console'); }, configurable: true });
// The host keeps this function (and reads run.where after an error escapes); nothing is left on globalThis.
function run(programJson, scopeJson) {
  var program = parse(programJson);
  state.maxLines = program.maxLogLines;
  state.maxChars = program.maxLogChars;
  try {
    var self = build(parse(scopeJson));
    return finish(self, execute(program, self));
  } catch (e) {
    return stringify({ ok: false, failure: e instanceof Fail ? e.info : thrown(e, { label: where.label || 'sandbox', snippet: where.snippet }).info });
  }
}
run.where = where;
return run;
})`;
