import type { Code } from '../run/plan.js';
import { defaultExportMethods } from '../sandbox/script-module.js';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** An expression (`input`, `condition`, sub-workflow inputs); the sandbox also calls arrow-function strings. */
export function expression(source: string): Code {
  return { kind: 'expression', source };
}

/** Statements (`action.script`, `before`), as plain statements or the seed's `"() => { ... }"` strings. */
export function statements(source: string): Code {
  return { kind: 'statements', source };
}

/** A message template with `{placeholders}` (seed 001's `message`). */
export function template(source: string): Code {
  return { kind: 'template', source };
}

/** A handler field (seed 001): a bare name calls that script.js function; anything else runs as statements. */
export function handlerOrStatements(source: string): Code {
  const name = source.trim();
  return IDENTIFIER.test(name) ? { kind: 'handler', name } : statements(source);
}

/** Whether a handler field names a function (rather than holding code). */
export function isName(source: string): boolean {
  return IDENTIFIER.test(source.trim());
}

/** The function names a script.js defines (`export function x`, `function x`, `export const x = ...`, SynthDev's `export default { x() {} }`). */
export function scriptFunctions(script: string | null): Set<string> {
  const names = new Set<string>();
  if (!script) return names;
  for (const name of defaultExportMethods(script)) names.add(name);
  for (const m of script.matchAll(/(?:^|[\s;])(?:export\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(/g)) names.add(m[1]!);
  for (const m of script.matchAll(/(?:^|[\s;])(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?(?:function|\(|[A-Za-z_$][\w$]*\s*=>)/g)) names.add(m[1]!);
  return names;
}
