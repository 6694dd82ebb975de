/**
 * The guest's error part (a GUEST_MODULES entry, compiled only when something failed): how a thrown value
 * reads, how a value is described, and where a value stops being JSON data (a function, a cycle, a BigInt,
 * a Promise, a class instance), with its path.
 */
export const GUEST_ERRORS = `
var stringify = core.stringify, isArray = Array.isArray, proto = Object.getPrototypeOf, OP = Object.prototype, AP = Array.prototype;
function show(v) { if (typeof v === 'string') return v; try { var s = stringify(v); return s === undefined ? String(v) : s; } catch (e) { try { return String(v); } catch (x) { return '[unprintable]'; } } }
function describe(v) {
  if (v === undefined || v === null) return String(v);
  if (typeof v === 'function') return 'a function';
  var t = typeof v === 'string' ? stringify(v) : show(v);
  return (t.length > 60 ? t.slice(0, 57) + '...' : t) + ' (' + (isArray(v) ? 'array' : typeof v) + ')';
}
// Where a value stops being JSON data: a function, a cycle, a BigInt, a Promise, a class instance.
function walk(v, path, depth, stack) {
  var t = typeof v;
  if (v === null || v === undefined || t === 'string' || t === 'boolean' || t === 'number') return null;
  if (t === 'function') return path + ' is a function';
  if (t === 'bigint') return path + ' is a BigInt';
  if (t === 'symbol') return path + ' is a symbol';
  if (depth > 100) return path + ' is nested more than 100 levels deep';
  if (stack.indexOf(v) !== -1) return path + ' refers back to itself (a cycle)';
  if (typeof v.toJSON === 'function') return null;
  var p = proto(v), found = null, ks = core.keys(v);
  if (p !== OP && p !== AP && p !== null) return path + ' is ' + (typeof v.then === 'function' ? 'a Promise' : 'a ' + (p.constructor && typeof p.constructor.name === 'string' ? p.constructor.name : 'object') + ', not plain data');
  stack.push(v);
  for (var k = 0; k < ks.length && !found; k++) {
    var at = isArray(v) ? path + '[' + ks[k] + ']' : path + '.' + ks[k];
    found = ks[k] === '__proto__' ? path + ' has a key "__proto__", which is not allowed' : walk(v[ks[k]], at, depth + 1, stack);
  }
  stack.pop();
  return found;
}
return {
  describe: describe,
  show: show,
  notJson: function (v, path, e) {
    var found = walk(v, path, 0, []) || path + ' cannot be turned into JSON (' + (e instanceof core.Fail ? 'a value that is not data' : show(e && e.message)) + ')';
    if (/ is a Promise$/.test(found)) return found + ': workflow code runs synchronously (no async/await)';
    return found + ': only JSON data (strings, numbers, booleans, null, arrays, plain objects) can be kept';
  },
  thrown: function (e, piece) {
    var name = 'thrown value', message;
    try { if (e !== null && typeof e === 'object' && typeof e.name === 'string') name = e.name; message = name !== 'thrown value' && typeof e.message === 'string' ? e.message : show(e); } catch (x) { message = '(unreadable error)'; }
    return new core.Fail({ kind: name === 'SyntaxError' ? 'syntax' : 'thrown', label: piece.label, snippet: piece.snippet, name: name, message: message });
  },
};`;
