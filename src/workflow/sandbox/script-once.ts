import { GUEST_SCOPE_NAMES } from './guest.js';
import { isPropertyName, significant, tokenize, type Token } from './tokens.js';

// The free names workflow code reads as parameters: in script.js's functions they would name the first
// evaluation's values, were its top level run only once.
const SCOPE_NAMES = new Set(GUEST_SCOPE_NAMES);
const LITERALS = new Set(['true', 'false', 'null', 'undefined']);
// What may follow a top-level function's name where it is used: a call (never taken as a value).
const CALLED = new Set(['(']);
// The binding script-module.ts gives `export default <object>`.
const DEFAULT = '__default';

/**
 * Whether script.js (as loadScriptModule made it) may run its top level once per context and have its
 * functions called directly ever after, with nothing an evaluation does carrying over to the next. Decided
 * on the tokens, conservatively (false whenever unsure; the script then runs afresh for every evaluation):
 * the top level may only declare functions, `const` names of primitive literals and the default export's
 * object of methods and primitives, so running it creates no state but frozen functions (the guest
 * deep-freezes them and that object) and immutable bindings; a function's name may only be called (never
 * assigned, nor taken as a value); no code may name `eval` (which could reassign a binding) or a scope
 * name as a free variable (which would keep the first evaluation's value); and nothing a token scan could
 * read otherwise than QuickJS (a `/`, an escaped name, an HTML-like comment) may appear.
 */
export function runsOnce(source: string): boolean {
  // Where a scan without a parser may read code otherwise than QuickJS does: a `/` (regex or division?), an
  // escape in a name (`\u0070re = ...`), HTML-like comments.
  if (source.includes('<!--') || source.includes('-->')) return false;
  const tokens = significant(tokenize(source));
  if (tokens.some((t) => t.type === 'regex' || (t.type === 'punct' && (t.text === '/' || t.text === '\\')))) return false;
  const scan = new TopLevel(tokens);
  if (!scan.statements()) return false;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.type !== 'ident' || isPropertyName(tokens, k) || isObjectKey(tokens, k)) continue;
    if (t.text === 'eval' || SCOPE_NAMES.has(t.text)) return false;
    if (scan.declaredAt.has(k)) continue;
    if (t.text === DEFAULT) return false;
    if (scan.functions.has(t.text) && !CALLED.has(tokens[k + 1]?.text ?? '')) return false;
  }
  return true;
}

// `{ name: ...` or `, name: ...`: a key of an object literal (or of a pattern, where it names no binding either).
function isObjectKey(tokens: readonly Token[], k: number): boolean {
  const before = tokens[k - 1]?.text;
  return tokens[k + 1]?.text === ':' && (before === '{' || before === ',');
}

/** A recursive-descent reading of the few top-level forms that create no state; each method advances `at` or answers false. */
class TopLevel {
  at = 0;
  /** Top-level function names (their bindings could be reassigned, unlike a const). */
  readonly functions = new Set<string>();
  /** Where a name is declared (not a use). */
  readonly declaredAt = new Set<number>();

  constructor(private readonly tokens: readonly Token[]) {}

  statements(): boolean {
    // A directive prologue ('use strict';) makes the script body strict either way.
    while (this.tokens[this.at]?.type === 'string' && (this.is(';', 1) || this.at + 1 === this.tokens.length)) this.at += 2;
    while (this.at < this.tokens.length) {
      if (this.is(';')) this.at += 1;
      else if (this.is('function') || (this.is('async') && this.is('function', 1))) {
        if (!this.functionDeclaration()) return false;
      } else if (this.is('const')) {
        if (!this.declarations(false)) return false;
      } else if (this.is('var') && this.is(DEFAULT, 1)) {
        if (!this.declarations(true)) return false;
      } else return false;
    }
    return true;
  }

  private functionDeclaration(): boolean {
    if (this.is('async')) this.at += 1;
    this.at += 1;
    if (this.is('*')) this.at += 1;
    const name = this.tokens[this.at];
    if (name?.type !== 'ident') return false;
    this.functions.add(name.text);
    this.declaredAt.add(this.at);
    this.at += 1;
    return this.parametersAndBody();
  }

  // `const A = 1, B = 'x';` or `var __default = { ... };`
  private declarations(isDefault: boolean): boolean {
    this.at += 1;
    for (;;) {
      const name = this.tokens[this.at];
      if (name?.type !== 'ident' || !this.is('=', 1)) return false;
      this.declaredAt.add(this.at);
      this.at += 2;
      if (!(isDefault ? this.object() : this.primitive())) return false;
      if (!this.is(',')) break;
      this.at += 1;
    }
    if (this.is(';')) this.at += 1;
    return true;
  }

  private primitive(): boolean {
    const t = this.tokens[this.at];
    if (!t) return false;
    if (t.text === '-' && this.tokens[this.at + 1]?.type === 'number') this.at += 1;
    const value = this.tokens[this.at];
    // A template literal without substitutions is one token from backtick to backtick.
    const ok =
      value !== undefined &&
      (value.type === 'string' ||
        value.type === 'number' ||
        (value.type === 'ident' && LITERALS.has(value.text)) ||
        (value.type === 'template' && value.text.length >= 2 && value.text.startsWith('`') && value.text.endsWith('`')));
    if (ok) this.at += 1;
    return ok;
  }

  // `{ key: primitive, key: function (...) {...}, key(...) {...}, async key(...) {...}, *key(...) {...} }`
  private object(): boolean {
    if (!this.is('{')) return false;
    this.at += 1;
    while (!this.is('}')) {
      if (this.is('async') && !this.is('(', 1) && !this.is(':', 1)) this.at += 1;
      if (this.is('*')) this.at += 1;
      const key = this.tokens[this.at];
      if (!key || (key.type !== 'ident' && key.type !== 'string' && key.type !== 'number')) return false;
      this.at += 1;
      if (this.is('(')) {
        if (!this.parametersAndBody()) return false;
      } else if (this.is(':')) {
        this.at += 1;
        if (this.is('function') || (this.is('async') && this.is('function', 1))) {
          if (this.is('async')) this.at += 1;
          this.at += 1;
          if (this.is('*')) this.at += 1;
          if (this.tokens[this.at]?.type === 'ident') this.at += 1;
          if (!this.parametersAndBody()) return false;
        } else if (!this.primitive()) return false;
      } else return false;
      if (this.is(',')) this.at += 1;
      else if (!this.is('}')) return false;
    }
    this.at += 1;
    return true;
  }

  // `(...) {...}`: skipped (it runs only when called, each time afresh).
  private parametersAndBody(): boolean {
    return this.is('(') && this.skip('(', ')') && this.is('{') && this.skip('{', '}');
  }

  private skip(open: string, close: string): boolean {
    let depth = 0;
    for (; this.at < this.tokens.length; this.at++) {
      const t = this.tokens[this.at]!;
      if (t.type !== 'punct') continue;
      if (t.text === open) depth += 1;
      else if (t.text === close && --depth === 0) {
        this.at += 1;
        return true;
      }
    }
    return false;
  }

  private is(text: string, ahead = 0): boolean {
    const t = this.tokens[this.at + ahead];
    return t !== undefined && t.text === text && t.type !== 'string' && t.type !== 'template';
  }
}
