import { GUEST_ERRORS } from './guest-errors.js';

/**
 * Parts of the guest runtime compiled only when workflow code first needs them (see GUEST_CORE). Each is
 * a function body of `core` (the core's helpers) that returns the part's functions.
 */
export const GUEST_MODULES: Record<string, string> = {
  methods: `
// What this.* offers beyond data, built on first use; each entry makes one property of the scope object.
return {
  // Maps (seed 000: this.contexts.get(name), SynthDev: this.workflow_contexts.get(name)) that also read by name (contexts.x.messages).
  contexts: function (self, scope) { return core.need('contexts').contexts(scope.contexts || {}, scope.context_limits || {}); },
  workflow_contexts: function (self) { return self.contexts; },
  agents: function (self, scope) { return core.need('agents').agents(scope.agents || {}, scope.roster || {}, self); },
  getAgent: function (self) { return function (role) { return core.need('agents').getAgent(self.agents, role); }; },
  getToolCalls: function (self) { return function (role) { return core.need('agents').getAgent(self.agents, role).toolCalls; }; },
  getContext: function (self) { return function (n) { return core.need('contexts').getContext(self.contexts, n); }; },
  evaluateExpression: function (self) { return function (source) { return core.apply(core.compileBody('return (' + source + '\\n);'), self, core.argsOf(self)); }; },
  // Seed 001 names the same things this.context.getContext(); this.last_response is the last answer as the API gave it (and reads as its text).
  context: function (self) { return { getContext: self.getContext }; },
  last_response: function (self, scope) { return core.need('agents').response(scope.last_response, scope.last_agent_response); },
};`,

  fields: `
return {
  // Named values (sub-workflow and branch inputs), in order, sharing common_data: their JSON object.
  run: function (program, script, self) {
    var fns = program.fields.map(function (f) { return core.compile(f[1]); }), out = [];
    program.fields.forEach(function (f, i) {
      var v = core.json(core.runPiece(f[1], fns[i], script, self), 'its value', f[1]);
      if (v !== undefined) out.push(core.stringify(f[0]) + ':' + v);
    });
    return '{' + out.join(',') + '}';
  },
};`,

  console: `
var state = core.state, show = function (v) { return typeof v === 'string' ? v : core.need('errors').show(v); };
function logger(level) {
  return function () {
    var parts = [];
    for (var i = 0; i < arguments.length; i++) parts[i] = show(arguments[i]);
    var line = (level ? level + ': ' : '') + parts.join(' ');
    if (line.length > state.maxChars) line = line.slice(0, state.maxChars) + '...';
    if (state.logs.length < state.maxLines) state.logs.push(line); else state.dropped += 1;
  };
}
return { log: logger(''), info: logger(''), debug: logger(''), warn: logger('warn'), error: logger('error') };`,

  agents: `
var hide = core.hide, toolCall = core.toolCall;
function own(o, k) { return o !== null && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, k); }
// An answer as the chat-completions API gave it (SynthDev's this.last_response), as a String of its text (seed 001 reads it as text).
function response(raw, text) {
  if (!raw) return text === undefined ? null : text;
  var r = new String(raw.content === null ? '' : raw.content), message = { role: 'assistant', content: raw.content };
  if (raw.tool_calls.length > 0) message.tool_calls = raw.tool_calls.map(function (c) { return { id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }; });
  // Own, enumerable, writable, configurable, as a definition would make them (no name of them is on a prototype,
  // all frozen); set one by one, which costs about half an Object.assign of the same fields here.
  r.id = 'chatcmpl-troupe';
  r.object = 'chat.completion';
  r.created = 0;
  r.model = raw.model;
  r.choices = [{ index: 0, message: message, finish_reason: raw.finish_reason }];
  if (raw.usage) r.usage = { prompt_tokens: raw.usage.prompt_tokens, completion_tokens: raw.usage.completion_tokens, total_tokens: raw.usage.prompt_tokens + raw.usage.completion_tokens };
  return r;
}
function agent(role, a, info, self) {
  var calls = ((a && a.toolCalls) || []).map(toolCall), text = a ? a.response : null, raw;
  var o = { role: role, agentRole: role, contextRole: info ? info.role : null, response: text, toolCalls: calls };
  hide(o, 'getLastResponse', function () { return text; });
  hide(o, 'getToolCalls', function () { return calls; });
  hide(o, 'getParsingToolCalls', function () { return calls; });
  hide(o, 'hasToolCalls', function () { return calls.length > 0; });
  hide(o, 'getRole', function () { return role; });
  hide(o, 'getContextRole', function () { return info ? info.role : null; });
  hide(o, 'getLastRawResponse', function () { if (raw === undefined) raw = a && a.raw ? response(a.raw, text) : null; return raw; });
  hide(o, 'getContext', function () { return info ? core.need('contexts').getContext(self.contexts, info.context) : null; });
  return o;
}
return {
  response: response,
  // Every agent of the workflow, answered or not, in a Map that also reads by role (agents.coder).
  agents: function (scoped, roster, self) {
    var out = core.need('contexts').map(), roles = core.keys(roster);
    core.keys(scoped).forEach(function (r) { if (roles.indexOf(r) === -1) roles.push(r); });
    roles.forEach(function (r) { out.put(r, agent(r, own(scoped, r) ? scoped[r] : null, own(roster, r) ? roster[r] : null, self)); });
    return out.map;
  },
  // An agent that has not answered yet reads as one with no answer and no tool calls.
  getAgent: function (agents, role) {
    var found = agents instanceof Map ? agents.get(role) : own(agents, role) ? agents[role] : undefined;
    return found !== undefined ? found : agent(role, null, null, null);
  },
};`,

  contexts: `
var ROLES = { system: 1, user: 1, assistant: 1 }, isRole = function (r) { return typeof r === 'string' && Object.prototype.hasOwnProperty.call(ROLES, r); }, state = core.state, keys = core.keys, describe = function (v) { return core.need('errors').describe(v); };
var MAP_NAMES = Object.getOwnPropertyNames(Map.prototype), KEPT = 10, define = Object.defineProperty, freeze = Object.freeze, create = Object.create;
// A Map whose entries also read as properties (names a Map has of its own are only in the Map).
function map() {
  var m = new Map();
  return { map: m, put: function (k, v) { m.set(k, v); if (MAP_NAMES.indexOf(k) === -1 && k !== '__proto__') Object.defineProperty(m, k, { value: v, writable: true, enumerable: true, configurable: true }); } };
}
// Seed 000's trimming (as SynthDev and the engine do it): past the limit, system messages first, and the oldest others go while more than 10 remain.
function trim(messages, limit) {
  var length = 0, i;
  for (i = 0; i < messages.length; i++) length += typeof messages[i].content === 'string' ? messages[i].content.length : 0;
  if (!(limit > 0) || length <= limit) return;
  var system = messages.filter(function (m) { return m.role === 'system'; }), others = messages.filter(function (m) { return m.role !== 'system'; });
  while (length > limit && others.length > KEPT) length -= others.shift().content.length;
  messages.length = 0;
  system.concat(others).forEach(function (m) { messages.push(m); });
}
// Contexts come as { chars } (the length of their messages' text, see wire-contexts.ts); their messages come
// apart, only for code that reads them: until it does, addMessage only notes what it adds, past max_length too
// (the engine appends them one by one and trims as addMessage does), and the answer carries those messages
// alone, unless they pass max_length by themselves. Code that reads them when they were not sent stops (state.wanted: the host runs it again with them);
// it then sees them as addMessage would have left them: each added one appended, then trimmed. Code that read
// them and left them as addMessage made them (its copies compared with the kept messages, replayed the same way)
// still answers only what it added; anything else it did to them (an edit, a push, a new list) sends the whole list.
// Per context object: what this part added (frozen, code never holds them), their length, its max_length, and
// once read, the kept messages as code's list should be (null: code assigned a list of its own).
var records = new WeakMap();
function copy(m) { return { role: m.role, content: m.content }; }
function sent(name) {
  var all = state.messages;
  if (all === null || typeof all !== 'object') {
    state.wanted = true;
    throw new Error('the messages of context ' + name + ' are being fetched');
  }
  return Object.prototype.hasOwnProperty.call(all, name) && Array.isArray(all[name]) ? all[name] : [];
}
function textLength(list) { var n = 0; for (var i = 0; i < list.length; i++) n += list[i].content.length; return n; }
// The messages sent with those added since (by parts before this one, then this one) added one by one.
function replay(list, adds, limit) {
  if (!(limit > 0)) return list.concat(adds);
  var length = textLength(list);
  for (var i = 0; i < adds.length; i++) {
    list.push(adds[i]);
    length += adds[i].content.length;
    if (length > limit) { trim(list, limit); length = textLength(list); }
  }
  return list;
}
// Whether code's list is, message by message, the one addMessage alone would have left (what else it holds is not sent).
function unchanged(list, expected) {
  if (!Array.isArray(list) || list.length !== expected.length) return false;
  for (var i = 0; i < list.length; i++) {
    var m = list[i], c;
    if (m === null || typeof m !== 'object') return false;
    c = m.content;
    if (c instanceof String) c = String(c);
    if (m.role !== expected[i].role || c !== expected[i].content) return false;
  }
  return true;
}
function recordOf(o) {
  var record = o !== null && typeof o === 'object' ? records.get(o) : undefined;
  if (!record) throw new TypeError('not a context: call its methods on it (context.addMessage(...))');
  return record;
}
function changed(record) { state.changed[record.name] = true; state.anyChanged = true; }
function settle(o, record, list, expected) { record.read = true; record.expected = expected; define(o, 'messages', { value: list, writable: true, enumerable: true, configurable: true }); return list; }
// A context's methods, shared (on a prototype: made once, not per context and part) and frozen with the module, as
// SynthDev's WorkflowContext has them on its class; each finds its context's record by \`this\`.
var METHODS = {
  addMessage: function (m) {
    var o = this, record = recordOf(o), limit = record.limit;
    // Each field read once: a getter must not pass the check with one answer and be copied with another.
    var role = m !== null && typeof m === 'object' ? m.role : undefined;
    if (!isRole(role)) throw new TypeError('addMessage needs { role: "system" | "user" | "assistant", content: "..." }');
    var content = m.content;
    var added = freeze({ role: role, content: typeof content === 'string' ? content : content instanceof String ? String(content) : core.need('errors').show(content) });
    record.added.push(added);
    record.chars += added.content.length;
    if (!record.read) {
      // What this part added passes max_length on its own: most of it is trimmed away, so the context is read,
      // trimmed and sent whole (at most about max_length), not every message added (a loop may add megabytes).
      if (limit > 0 && record.chars > limit) o.messages;
    } else {
      o.messages.push(copy(added));
      trim(o.messages, limit);
      if (record.expected) { record.expected.push(added); trim(record.expected, limit); }
    }
    changed(record);
  },
  getMessages: function () { return this.messages.slice(); },
  getLastMessage: function () { var ms = this.messages; return ms.length > 0 ? ms[ms.length - 1] : null; },
  getMessagesByRole: function (role) { return this.messages.filter(function (m) { return m.role === role; }); },
  clearMessages: function () { var record = recordOf(this); this.messages.length = 0; changed(record); },
  clear: function () { var record = recordOf(this); this.messages.length = 0; changed(record); },
  getName: function () { return recordOf(this).name; },
  hasMessages: function () { return this.messages.length > 0; },
}, PROTO = Object.create(Object.prototype);
keys(METHODS).forEach(function (k) { core.hide(PROTO, k, METHODS[k]); });
// The messages, read from the kept ones when code first reads them (an own property, as before: it is data of the context).
var LAZY_MESSAGES = {
  get: function () {
    var record = recordOf(this), name = record.name, adds = record.base.concat(record.added);
    return settle(this, record, replay(sent(name).map(copy), adds.map(copy), record.limit), replay(sent(name).slice(), adds, record.limit));
  },
  set: function (v) { settle(this, recordOf(this), v, null); },
  enumerable: true,
  configurable: true,
};
function context(name, wire, limit) {
  var o = create(PROTO), base = state.base !== null && Object.prototype.hasOwnProperty.call(state.base, name) ? state.base[name] : [];
  var record = { name: name, base: base, added: [], chars: 0, read: false, expected: null, limit: limit };
  o.name = name;
  o.maxLength = limit;
  records.set(o, record);
  // A job that carries its whole scope (no kept fields): any change sends the whole list.
  if (Array.isArray(wire)) settle(o, record, wire.map(copy), null);
  else define(o, 'messages', LAZY_MESSAGES);
  return o;
}
function problem(message) { return core.fail('problem', { label: 'contexts' }, message); }
function lookup(contexts, n) { return contexts instanceof Map ? contexts.get(n) : contexts !== null && typeof contexts === 'object' && Object.prototype.hasOwnProperty.call(contexts, n) ? contexts[n] : undefined; }
function names(contexts) { return contexts instanceof Map ? Array.from(contexts.keys()) : keys(contexts || {}); }
return {
  // Frozen with the module (nothing code does to them can reach another part or job).
  proto: PROTO,
  lazyMessages: LAZY_MESSAGES,
  map: map,
  contexts: function (scoped, limits) { var out = map(); keys(scoped).forEach(function (n) { out.put(n, context(n, scoped[n], limits[n])); }); return out.map; },
  getContext: function (contexts, n) {
    var found = lookup(contexts, n);
    if (found !== undefined) return found;
    throw new Error('no context "' + n + '" (contexts: ' + (names(contexts).join(', ') || 'none') + ')');
  },
  // What code changed, as the answer's JSON fields: the messages added to a context it never read
  // ("appended"), and the whole message list of any other it changed ("contexts"; the engine takes it as it
  // is, trimmed to its max_length).
  changed: function (self, changed) {
    var lists = {}, added = {}, anyList = false, anyAdded = false, carried = {};
    if (state.base !== null) keys(state.base).forEach(function (n) { carried[n] = state.base[n]; });
    keys(changed).forEach(function (n) {
      var c = lookup(self.contexts, n), record = c !== null && typeof c === 'object' ? records.get(c) : undefined;
      // Only added (and read, if at all, and left as addMessage made it, within max_length): the messages added.
      if (record && (!record.read || (record.expected !== null && (!(record.limit > 0) || record.chars <= record.limit) && unchanged(c.messages, record.expected)))) {
        added[n] = record.added;
        carried[n] = (carried[n] || []).concat(record.added);
        anyAdded = true;
        return;
      }
      var messages = c && c.messages;
      if (!Array.isArray(messages)) throw problem('contexts.' + n + '.messages must stay a list');
      lists[n] = messages.map(function (m) {
        // Each field read once (see addMessage).
        var object = m !== null && typeof m === 'object', role = object ? m.role : undefined, content = object ? m.content : undefined;
        if (content instanceof String) content = String(content);
        if (!object || !isRole(role) || typeof content !== 'string') throw problem('contexts.' + n + ' has a message that is not { role, content }: ' + describe(m));
        return { role: role, content: content };
      });
      anyList = true;
    });
    state.lists = anyList;
    state.added = carried;
    return (anyList ? ',"contexts":' + core.stringify(lists) : '') + (anyAdded ? ',"appended":' + core.stringify(added) : '');
  },
};`,

  template: `
var SCOPE = { input: 1, last_agent_response: 1, last_tool_calls: 1, sub_workflow_result: 1, last_error: 1, contexts: 1, agents: 1 };
function own(o, k) { return o !== null && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, k); }
function dig(v, path) { for (var i = 0; i < path.length; i++) { if (!own(v, path[i])) return undefined; v = v[path[i]]; } return v; }
// {input.x} is the workflow's input x (common_data by name first), {input} its text; {x} is common_data.x, else a scope name.
function resolve(path, self) {
  var head = path[0], rest = path.slice(1), cd = self.common_data, wi = self.input;
  if (head === 'input' && wi instanceof String) {
    if (rest.length === 0) return String(wi);
    var w = dig(cd, rest), named = {};
    if (w !== undefined) return w;
    core.keys(wi).forEach(function (k) { if (!/^[0-9]+$/.test(k)) named[k] = wi[k]; });
    return dig(named, rest);
  }
  if (head === 'input' && rest.length > 0) { var v = dig(cd, rest); return v !== undefined ? v : dig(self.input, rest); }
  if (head === 'common_data' || head === 'variables') return dig(cd, rest);
  if (head !== 'input' && own(cd, head)) return dig(cd, path);
  return own(SCOPE, head) ? dig(self[head], rest) : undefined;
}
return {
  render: function (piece, self) {
    var out = '';
    piece.parts.forEach(function (part) {
      if (typeof part === 'string') { out += part; return; }
      var v = resolve(part.path, self);
      if (v === undefined || v === null) core.G.console.log('template: ' + part.raw + ' is not set; rendered as empty');
      else out += typeof v === 'string' ? v : core.need('errors').show(v);
    });
    return out;
  },
};`,

  script: `
var ran = new Map();
// script.onThis: the functions code can name on this (absent: all); defining the others would be work for nothing.
function onSelf(self, functions, onThis) {
  var names = onThis || core.keys(functions);
  for (var i = 0; i < names.length; i++) if (Object.prototype.hasOwnProperty.call(functions, names[i]) && !(names[i] in self)) core.hide(self, names[i], functions[names[i]]);
}
return {
  // script.js is compiled once per context (by its hash) and run afresh for every evaluation as a function
  // body: its top-level functions are handlers (and this.helper() too), its variables start over each time.
  // A script whose top level holds no state (script.once, see script-once.ts) runs once per context instead:
  // its functions, the table and what they reach are deep-frozen and called directly ever after.
  load: function (script, self, source) {
    var done = script.once ? ran.get(script.hash) : undefined;
    if (done) { onSelf(self, done.functions, script.onThis); return done; }
    var body = core.scripts.get(script.hash), table;
    try {
      if (!body) {
        if (typeof source !== 'string') throw new Error('the sandbox was not sent script.js');
        body = core.keep(core.scripts, script.hash, core.compileBody(source + '\\n;return {' + script.names.map(function (n) {
          return core.stringify(n) + ': typeof ' + n + " === 'undefined' ? undefined : " + n;
        }).join(', ') + '};'));
      }
      table = core.apply(body, self, core.argsOf(self));
    } catch (e) { throw core.need('errors').thrown(e, { label: 'script.js of workflow ' + script.workflow }); }
    var functions = {};
    script.names.forEach(function (n) { if (typeof table[n] === 'function') functions[n] = table[n]; });
    // SynthDev's form: export default { handler() {...}, ... }: its methods are the handlers.
    var d = table.__default;
    if (d !== null && typeof d === 'object') core.keys(d).forEach(function (n) { if (typeof d[n] === 'function' && !Object.prototype.hasOwnProperty.call(functions, n)) functions[n] = d[n]; });
    var loaded = { workflow: script.workflow, functions: functions };
    // Frozen before any handler runs (the table holds every top-level binding's value).
    if (script.once) { loaded.table = table; core.keep(ran, script.hash, loaded); }
    onSelf(self, functions, script.onThis);
    return loaded;
  },
  handler: function (script, piece) {
    var fn = script && Object.prototype.hasOwnProperty.call(script.functions, piece.name) ? script.functions[piece.name] : undefined;
    if (typeof fn === 'function') return fn;
    var names = script ? core.keys(script.functions) : [];
    throw new core.Fail({ kind: 'problem', label: piece.label, message: 'script.js of workflow ' + (script ? script.workflow : '?') + ' has no function "' + piece.name + '" (' + (names.length ? 'it has: ' + names.join(', ') : 'it defines no functions') + ')' });
  },
};`,

  errors: GUEST_ERRORS,
};
