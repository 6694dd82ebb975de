/**
 * The part of the guest core that makes a context safe to keep between evaluations of one session (pasted
 * into GUEST_CORE; runs once per context, before any workflow code). Every built-in reachable from the
 * global object, and the hidden ones (generator, async and iterator prototypes), is frozen; the global
 * object's own properties are made read-only but it stays extensible (sloppy code may still make globals),
 * and `sweep` deletes whatever an evaluation added to it. Measured attacks this stops: replacing
 * `Array.prototype.find`, `JSON.parse` or `Math.random`, polluting `Object.prototype`, changing `console`.
 *
 * Freezing a prototype breaks plain assignment of the same name on ordinary objects (`err.name = 'X'`,
 * `o.toString = f`: the "override mistake"), so the names code commonly sets become accessors whose setter
 * defines an own property on the object assigned to, as SES does.
 */
export const GUEST_HARDEN = `
var hardened = new WeakSet(), BASELINE = null, GPROTO = getProto(G), SYMBOLS_OF = Object.getOwnPropertySymbols, BASE_ENUMERABLE = 0, definedOnG = false;
// Every way to give an object a non-enumerable property goes through these three (assignment, var and function
// declarations make enumerable ones): wrapped so a definition on the global object is known, and the sweep
// can count enumerable keys otherwise.
// Methods, so that like the originals they are no constructors.
function watchDefinitions() {
  var dp = Object.defineProperty, dps = Object.defineProperties, rdp = Reflect.defineProperty;
  var watched = {
    defineProperty(o, p, d) { if (o === G) definedOnG = true; return dp(o, p, d); },
    defineProperties(o, ps) { if (o === G) definedOnG = true; return dps(o, ps); },
  };
  var reflected = { defineProperty(o, p, d) { if (o === G) definedOnG = true; return rdp(o, p, d); } };
  dp(Object, 'defineProperty', { value: watched.defineProperty });
  dp(Object, 'defineProperties', { value: watched.defineProperties });
  dp(Reflect, 'defineProperty', { value: reflected.defineProperty });
}
// Deep-freezes everything reachable from root through properties (read by descriptor: no getter runs) and prototypes.
function harden(root) {
  var todo = [root], n = 1;
  while (n > 0) {
    var o = todo[--n];
    if ((typeof o !== 'object' && typeof o !== 'function') || o === null || hardened.has(o)) continue;
    hardened.add(o);
    if (o !== G) freeze(o);
    var ks = ownKeys(o);
    for (var i = 0; i < ks.length; i++) {
      var d = getOwn(o, ks[i]);
      if (!d) continue;
      if ('value' in d) todo[n++] = d.value;
      else { todo[n++] = d.get; todo[n++] = d.set; }
    }
    todo[n++] = getProto(o);
  }
  return root;
}
function overridable(proto, names) {
  names.forEach(function (k) {
    var d = getOwn(proto, k);
    if (!d || !('value' in d) || !d.writable) return;
    var value = d.value;
    define(proto, k, {
      get: function () { return value; },
      set: function (v) {
        if (this === proto) throw new TypeError('the built-in ' + String(k) + ' cannot be changed (built-ins are frozen in the sandbox)');
        define(this, k, { value: v, writable: true, enumerable: true, configurable: true });
      },
      enumerable: d.enumerable,
      configurable: false,
    });
  });
}
function hardenRealm() {
  watchDefinitions();
  var errors = [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError, InternalError, AggregateError];
  overridable(OP, ['constructor', 'toString', 'toLocaleString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable']);
  errors.forEach(function (E) { overridable(E.prototype, ['constructor', 'name', 'message', 'toString']); });
  overridable(F.prototype, ['constructor', 'toString', 'apply', 'call', 'bind']);
  overridable(AP, ['constructor', 'toString', 'push', 'concat', 'join']);
  overridable(Promise.prototype, ['constructor']);
  [G, getProto(function* () {}), getProto(async function () {}), getProto(async function* () {}), getProto([][Symbol.iterator]()),
    getProto(new Map().entries()), getProto(new Set().values()), getProto(''[Symbol.iterator]()), getProto(/a/[Symbol.matchAll]('a'))].forEach(harden);
  ownKeys(G).forEach(function (k) {
    var d = getOwn(G, k);
    define(G, k, 'value' in d ? { writable: false, configurable: false } : { configurable: false });
  });
  BASELINE = new Set(ownKeys(G));
  BASE_ENUMERABLE = enumerableOwn();
}
// How many enumerable own properties (names and symbols) the global object has. A spread copies just those, on
// the object's own record, in a quarter of the time Object.keys takes on it (which looks each of its ~50
// properties up again); it runs an enumerable getter code put on the global object, so the sweep reads the
// global object's prototype and extensibility only after it.
function enumerableOwn() {
  var copy;
  // A getter that throws: the global object is not as it was (the sweep deletes what is not of the baseline).
  try { copy = { ...G }; } catch (e) { return -1; }
  return keys(copy).length + SYMBOLS_OF(copy).length;
}
// After each evaluation: globals it added are deleted; false when the global object cannot be put back.
function sweep() {
  var clean = true;
  // Nothing of the baseline can go (it is locked), so the same count means nothing was added, unless a
  // definition (non-enumerable) went to the global object.
  if (definedOnG || enumerableOwn() !== BASE_ENUMERABLE) {
    definedOnG = false;
    var ks = ownKeys(G);
    for (var i = 0; i < ks.length; i++) if (!BASELINE.has(ks[i]) && !remove(G, ks[i])) clean = false;
  }
  return clean && getProto(G) === GPROTO && isExtensible(G);
}
`;
