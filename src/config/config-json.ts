import type { ConfigIssue } from './issues.js';
import { jsonSyntaxError, lineColumn } from './json-syntax.js';

/**
 * How deeply a config file may nest objects and arrays. Workflow `variables` become common_data, which the
 * sandbox takes at most 100 levels deep, and the engine, the journal and the UI walk data recursively.
 */
export const MAX_CONFIG_NESTING = 100;

/**
 * How many values (objects, arrays, strings, numbers, booleans, nulls) a config file may hold. The shipped ones hold
 * a few hundred; the schema check gathers one issue per bad value, and past ~120,000 in one list zod's gathering
 * overflowed the call stack (a 500 KB workflow whose states were 250,000 zeros: "internal error").
 */
export const MAX_CONFIG_VALUES = 20_000;

/** Whether plain data holds more than `limit` values, counted with an explicit stack (stops once past it). */
export function tooManyValues(value: unknown, limit = MAX_CONFIG_VALUES): boolean {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (++count > limit) return true;
    if (node !== null && typeof node === 'object') for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push(child);
  }
  return false;
}

/** Segments of a path shown before it is cut with "…". */
const SHOWN = 4;

/**
 * Where plain data first nests deeper than `limit` (e.g. "variables.deep.a.a…"; "" for the top), or null
 * when it does not. Walks with an explicit stack, so a hostile file cannot overflow the call stack.
 */
export function tooDeepAt(value: unknown, limit = MAX_CONFIG_NESTING): string | null {
  const stack: { node: unknown; depth: number; path: string[] }[] = [{ node: value, depth: 0, path: [] }];
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > limit) return shownPath(path);
    const entries: [string, unknown][] = Array.isArray(node) ? node.map((v, i) => [`[${i}]`, v]) : Object.entries(node);
    for (const [key, child] of entries) {
      if (child !== null && typeof child === 'object') stack.push({ node: child, depth: depth + 1, path: path.length > SHOWN ? path : [...path, key] });
    }
  }
  return null;
}

/**
 * Where a `__proto__` key lies in parsed JSON (the path of the object holding it, '' at the top), or null when
 * there is none. JSON.parse makes it an own property; code that copies such data key by key would set a
 * prototype instead, so workflow data may not hold one. Iterative: data nests at most MAX_CONFIG_NESTING
 * levels by the time this runs, but the walk never recurses either way.
 */
export function protoKeyAt(value: unknown): string | null {
  const stack: { node: unknown; path: string[] }[] = [{ node: value, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (!Array.isArray(node) && Object.hasOwn(node, '__proto__')) return shownPath(path);
    const entries: [string, unknown][] = Array.isArray(node) ? node.map((v, i) => [`[${i}]`, v]) : Object.entries(node);
    for (const [key, child] of entries) {
      if (child !== null && typeof child === 'object') stack.push({ node: child, path: path.length > SHOWN ? path : [...path, key] });
    }
  }
  return null;
}

function shownPath(path: string[]): string {
  const kept = path.slice(0, SHOWN).reduce((text, key) => (key.startsWith('[') || text === '' ? `${text}${key}` : `${text}.${key}`), '');
  return path.length > SHOWN ? `${kept}…` : kept;
}

/**
 * A config file's JSON text parsed; text that is not JSON becomes an issue at its line and column, and data
 * nesting too deep an issue naming the field (and null).
 */
export function parseConfigJson(text: string, file: string, issues: ConfigIssue[]): { value: unknown } | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const found = jsonSyntaxError(text);
    if (!found) issues.push({ file, field: '', problem: `not valid JSON (${(error as Error).message})`, fix: 'fix the JSON syntax' });
    else issues.push({ file, field: '', problem: `not valid JSON: ${found.problem}`, fix: 'fix the JSON syntax there', at: lineColumn(text, found.offset) });
    return null;
  }
  const deep = tooDeepAt(value);
  if (deep !== null) {
    issues.push({ file, field: deep, problem: `nests deeper than ${MAX_CONFIG_NESTING} levels of objects and arrays`, fix: 'keep the data flatter' });
    return null;
  }
  if (tooManyValues(value)) {
    issues.push({
      file,
      field: '',
      problem: `holds more than ${MAX_CONFIG_VALUES.toLocaleString('en-US')} values (objects, arrays, strings, numbers)`,
      fix: 'a config needs far fewer: keep data out of it',
    });
    return null;
  }
  return { value };
}
