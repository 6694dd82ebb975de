import { type Node, parse } from 'acorn';

// The node types the tier interprets; a program holding any other is never tried (it runs in the sandbox).
const ALLOWED = new Set([
  'Program',
  'ExpressionStatement',
  'BlockStatement',
  'EmptyStatement',
  'ReturnStatement',
  'IfStatement',
  'VariableDeclaration',
  'VariableDeclarator',
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'TryStatement',
  'CatchClause',
  'ForStatement',
  'ForOfStatement',
  'WhileStatement',
  'BreakStatement',
  'ContinueStatement',
  'Identifier',
  'Literal',
  'TemplateLiteral',
  'TemplateElement',
  'ThisExpression',
  'ArrayExpression',
  'ObjectExpression',
  'Property',
  'UnaryExpression',
  'BinaryExpression',
  'LogicalExpression',
  'ConditionalExpression',
  'AssignmentExpression',
  'UpdateExpression',
  'MemberExpression',
  'ChainExpression',
  'CallExpression',
]);
const BINARY = new Set(['===', '!==', '==', '!=', '<', '>', '<=', '>=', '+', '-', '*', '/', '%']);
const UNARY = new Set(['!', '-', '+', 'typeof']);
const ASSIGN = new Set(['=', '+=', '-=']);
// Names only the sandbox has the means for: code built at run time, reflection.
const NAMES_REFUSED = new Set(['arguments', 'eval', 'Function', 'globalThis', 'Reflect', 'Proxy', 'Symbol', 'String', 'Number', 'Boolean', 'Promise', 'RegExp', 'Date']);
const MAX_CACHED = 2000;
/** A parsed body, or why there is none: acorn refused it ('syntax'), or it uses what the tier does not interpret ('refused'). */
export type Parsed = Node | 'syntax' | 'refused';
const cache = new Map<string, Parsed>();

/**
 * A function body (what the guest compiles: workflow code as prepare.ts wraps it, or script.js) parsed by acorn,
 * once per source. Code that uses anything the tier does not interpret always runs in the sandbox.
 * `script`: script.js, whose top level may also declare `var __default` (loadScriptModule's export default).
 */
export function parseBody(source: string, script = false): Parsed {
  const key = `${script ? 's' : 'b'}${source}`;
  let found = cache.get(key);
  if (found !== undefined) return found;
  found = parseChecked(source, script);
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, found);
  return found;
}

function parseChecked(source: string, script: boolean): Parsed {
  // HTML-like comments: acorn takes them as comments, QuickJS as operators.
  if (source.includes('<!--') || source.includes('-->')) return 'refused';
  let program: Node;
  try {
    program = parse(source, { ecmaVersion: 2020, sourceType: 'script', allowReturnOutsideFunction: true, allowHashBang: false });
  } catch {
    // What acorn refuses the sandbox reports (a syntax error) or reads otherwise: it decides.
    return 'syntax';
  }
  try {
    return subset(program, script, true, null) ? program : 'refused';
  } catch {
    // A tree deeper than the host's stack walks (a chain of 20,000 members): the engine's step must not throw, the sandbox decides.
    return 'refused';
  }
}

type AnyNode = Node & Record<string, unknown>;

// Whether every node is of a kind the tier interprets, with the forms it interprets.
function subset(node: Node, script: boolean, topLevel: boolean, parent: AnyNode | null): boolean {
  const n = node as AnyNode;
  if (!ALLOWED.has(n.type)) return false;
  switch (n.type) {
    case 'FunctionDeclaration':
      // Only at the top of a body: in a block, sloppy code's function declarations have Annex B's meaning.
      if (parent === null || !(parent.type === 'Program' || (parent.type === 'BlockStatement' && bodies.has(parent)))) return false;
      break;
    case 'ExpressionStatement':
      // 'use strict' would change what `this` and assignments mean: the sandbox runs such code.
      if (typeof n.directive === 'string') return false;
      break;
    case 'Literal':
      if (n.regex !== undefined || n.bigint !== undefined) return false;
      // A leading zero: a legacy octal (or decimal) literal in sloppy code.
      if (typeof n.value === 'number' && /^0\d/.test(String(n.raw))) return false;
      break;
    case 'Identifier':
      // A property's name (`x.arguments`, `{ Object: 1 }`) is no reference: only names that reach prototypes are refused there.
      if (FORBIDDEN_NAMES.has(n.name as string) || (!isPropertyName(n, parent) && NAMES_REFUSED.has(n.name as string))) return false;
      break;
    case 'VariableDeclaration':
      if (n.kind === 'var' && !(script && topLevel)) return false;
      for (const d of n.declarations as AnyNode[]) if ((d.id as AnyNode).type !== 'Identifier') return false;
      break;
    case 'FunctionExpression':
    case 'ArrowFunctionExpression':
      break;
    case 'TryStatement':
      if (n.finalizer || !n.handler) return false;
      break;
    case 'CatchClause':
      if (n.param && (n.param as AnyNode).type !== 'Identifier') return false;
      break;
    case 'ForOfStatement': {
      const left = n.left as AnyNode;
      if (left.type !== 'VariableDeclaration' || left.kind === 'var' || (left.declarations as AnyNode[]).length !== 1) return false;
      break;
    }
    case 'ForStatement':
      if (n.init && (n.init as AnyNode).type === 'VariableDeclaration' && (n.init as AnyNode).kind === 'var') return false;
      break;
    case 'BreakStatement':
    case 'ContinueStatement':
      if (n.label) return false;
      break;
    case 'ArrayExpression':
      for (const e of n.elements as (AnyNode | null)[]) if (e === null) return false;
      break;
    case 'Property':
      if (n.kind !== 'init') return false;
      break;
    case 'UnaryExpression':
      if (!UNARY.has(n.operator as string)) return false;
      break;
    case 'BinaryExpression':
      if (!BINARY.has(n.operator as string)) return false;
      break;
    case 'AssignmentExpression':
      if (!ASSIGN.has(n.operator as string)) return false;
      if ((n.left as AnyNode).type !== 'Identifier' && (n.left as AnyNode).type !== 'MemberExpression') return false;
      break;
    case 'UpdateExpression':
      if ((n.argument as AnyNode).type !== 'Identifier' && (n.argument as AnyNode).type !== 'MemberExpression') return false;
      break;
  }
  if (n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression') {
    if (n.async || n.generator) return false;
    for (const p of n.params as AnyNode[]) if (p.type !== 'Identifier') return false;
    if ((n.body as AnyNode).type === 'BlockStatement') bodies.add(n.body as AnyNode);
  }
  // Declarations inside blocks are not the top level any more (a `var` there is refused).
  const inner = topLevel && n.type === 'Program';
  for (const key in n) {
    if (key === 'type' || key === 'start' || key === 'end' || key === 'loc' || key === 'range') continue;
    const child = n[key];
    if (Array.isArray(child)) {
      for (const c of child) if (isNode(c) && !subset(c, script, inner, n)) return false;
    } else if (isNode(child) && !subset(child, script, inner, n)) return false;
  }
  return true;
}

// Function bodies met in the walk (a block there may declare functions).
const bodies = new WeakSet<AnyNode>();

// Names the guest defines that only the sandbox can give their meaning to.
const FORBIDDEN_NAMES = new Set(['evaluateExpression', '__proto__', 'constructor', 'prototype']);

function isPropertyName(n: AnyNode, parent: AnyNode | null): boolean {
  if (parent === null) return false;
  if (parent.type === 'MemberExpression') return parent.property === n && !parent.computed;
  return parent.type === 'Property' && parent.key === n && !parent.computed && !parent.shorthand;
}

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';
}
