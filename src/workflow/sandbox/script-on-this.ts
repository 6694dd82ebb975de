import { isPropertyName, significant, tokenize } from './tokens.js';

/** What of script.js a scan tells about `this.name`: the names it reads as properties, and those it declares or uses plainly. */
export interface ScriptNames {
  properties: ReadonlySet<string>;
  plain: ReadonlySet<string>;
}

// Names that read `this` by a key given as a string, or hand out `this` itself past the scan (`this.valueOf()[k]`).
const BY_KEY = new Set(['hasOwnProperty', 'propertyIsEnumerable', 'valueOf', '__lookupGetter__', '__lookupSetter__', '__defineGetter__', '__defineSetter__', '__proto__']);

/** The property names (`x.name`, `x?.name`) of some code, and its other identifiers. */
export function namesOf(source: string): ScriptNames {
  const tokens = significant(tokenize(source));
  const properties = new Set<string>();
  const plain = new Set<string>();
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.type === 'ident') (isPropertyName(tokens, k) ? properties : plain).add(t.text);
  }
  return { properties, plain };
}

/**
 * The script.js functions to define on `this` for a job: only those some of its code (script.js included) reads as
 * a property (`this.helper()`, `self.helper`), since a function is reached on `this` by name only, unless code reads
 * `this` reflectively (then the scope scan reads 'all' and the caller defines them all) or by a key given as a string
 * (`this.hasOwnProperty('helper')`: null, all of them). Defining one costs more than most handlers' own work.
 */
export function functionsOnThis(script: ScriptNames, pieces: readonly ScriptNames[]): string[] | null {
  const read = new Set(script.properties);
  for (const piece of pieces) for (const name of piece.properties) read.add(name);
  for (const name of read) if (BY_KEY.has(name)) return null;
  return [...script.plain].filter((name) => read.has(name)).sort();
}
