import { GUEST_ERRORS } from './guest-errors.js';

/**
 * Parts of the guest runtime compiled only when workflow code first needs them (see GUEST_CORE). Each is
 * a function body of `core` (the core's helpers) that returns the part's functions.
 */
export const GUEST_MODULES: Record<string, string> = {
  methods: `
// What this.* offers beyond data, built on first use; each entry makes one property of the scope object.
return {
  contexts: function (self, scope) { return core.need('contexts').contexts(scope.contexts || {}); },
  agents: function (self, scope) { return core.need('agents').agents(scope.agents || {}); },
  getAgent: function (self) { return function (role) { return core.need('agents').getAgent(self.agents, role); }; },
  getToolCalls: function (self) { return function (role) { return core.need('agents').getAgent(self.agents, role).toolCalls; }; },
  getContext: function (self) { return function (n) { return core.need('contexts').getContext(self.contexts, n); }; },
  evaluateExpression: function (self) { return function (source) { return core.apply(core.compileBody('return (' + source + '\\n);'), self, core.argsOf(self)); }; },
  // Seed 001 names the same things this.context.getContext() and this.last_response.
  context: function (self) { return { getContext: self.getContext }; },
  last_response: function (self, scope) { return scope.last_agent_response; },
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
function agent(role, a) {
  var calls = ((a && a.toolCalls) || []).map(toolCall), response = a ? a.response : null;
  var o = { role: role, response: response, toolCalls: calls };
  hide(o, 'getLastResponse', function () { return response; });
  hide(o, 'getToolCalls', function () { return calls; });
  hide(o, 'getParsingToolCalls', function () { return calls; });
  hide(o, 'getRole', function () { return role; });
  return o;
}
return {
  agents: function (scoped) { var out = {}; core.keys(scoped).forEach(function (r) { out[r] = agent(r, scoped[r]); }); return out; },
  // An agent that has not answered yet reads as one with no answer and no tool calls.
  getAgent: function (agents, role) { return own(agents, role) ? agents[role] : agent(role, null); },
};`,

  contexts: `
var ROLES = { system: 1, user: 1, assistant: 1 }, isRole = function (r) { return typeof r === 'string' && Object.prototype.hasOwnProperty.call(ROLES, r); }, state = core.state, keys = core.keys, describe = function (v) { return core.need('errors').describe(v); };
function context(name, messages) {
  var o = { name: name, messages: messages.map(function (m) { return { role: m.role, content: m.content }; }) };
  core.hide(o, 'addMessage', function (m) {
    if (m === null || typeof m !== 'object' || !isRole(m.role)) throw new TypeError('addMessage needs { role: "system" | "user" | "assistant", content: "..." }');
    o.messages.push({ role: m.role, content: typeof m.content === 'string' ? m.content : core.need('errors').show(m.content) });
    state.changed[name] = true;
  });
  return o;
}
function problem(message) { return core.fail('problem', { label: 'contexts' }, message); }
return {
  contexts: function (scoped) { var out = {}; keys(scoped).forEach(function (n) { out[n] = context(n, scoped[n]); }); return out; },
  getContext: function (contexts, n) {
    if (Object.prototype.hasOwnProperty.call(contexts, n)) return contexts[n];
    throw new Error('no context "' + n + '" (contexts: ' + (keys(contexts).join(', ') || 'none') + ')');
  },
  changed: function (self, changed) {
    var out = {};
    keys(changed).forEach(function (n) {
      var messages = self.contexts[n] && self.contexts[n].messages;
      if (!Array.isArray(messages)) throw problem('contexts.' + n + '.messages must stay a list');
      out[n] = messages.map(function (m) {
        if (m === null || typeof m !== 'object' || !isRole(m.role) || typeof m.content !== 'string') throw problem('contexts.' + n + ' has a message that is not { role, content }: ' + describe(m));
        return { role: m.role, content: m.content };
      });
    });
    return out;
  },
};`,

  template: `
var SCOPE = { input: 1, last_agent_response: 1, last_tool_calls: 1, sub_workflow_result: 1, last_error: 1, contexts: 1, agents: 1 };
function own(o, k) { return o !== null && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, k); }
function dig(v, path) { for (var i = 0; i < path.length; i++) { if (!own(v, path[i])) return undefined; v = v[path[i]]; } return v; }
// {input.x} is the workflow's input x (common_data by name first); {x} is common_data.x, else a scope name.
function resolve(path, self) {
  var head = path[0], rest = path.slice(1), cd = self.common_data;
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
return {
  // script.js is compiled once per context (by its hash) and run afresh for every evaluation as a function
  // body: its top-level functions are handlers (and this.helper() too), its variables start over each time.
  load: function (script, self, source) {
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
    core.keys(functions).forEach(function (n) { if (!(n in self)) core.hide(self, n, functions[n]); });
    return { workflow: script.workflow, functions: functions };
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
