import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/team.js';

// The layers of src/, bottom first, as the README's Development section describes them: a folder (or a
// top-level file) imports only from its own layer and the ones below. No exceptions are named today.
const LAYERS: string[][] = [
  ['errors', 'package-root', 'directive', 'arbiter', 'config'],
  ['engine'],
  ['llm'],
  ['usage', 'tools'],
  ['kernel'],
  ['memory'],
  ['team', 'workflow'],
  ['kinds', 'graph'],
  ['store'],
  ['report'],
  ['session'],
  ['commands'],
  ['ui', 'serve', 'console'],
  ['cli', 'index', 'testing'],
];

const SRC = join(REPO_ROOT, 'src');
const rank = new Map(LAYERS.flatMap((names, i) => names.map((n) => [n, i] as const)));
/** The folder a file is in, or a top-level file's name without its extension (imports name `.js`, files are `.ts`). */
const unitOf = (file: string) => relative(SRC, file).split(sep)[0]!.replace(/\.(tsx?|js)$/, '');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}

/** Every relative import (static, dynamic and `declare module`) of a file, as the file it names. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import\s*\(|declare module)\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => normalize(join(dirname(file), m[1]!)));
}

describe('the layers of src/', () => {
  const files = sources(SRC);

  it('every folder and top-level file has a layer', () => {
    expect([...new Set(files.map(unitOf))].filter((u) => !rank.has(u))).toEqual([]);
  });

  it('no import runs back up the layers', () => {
    const upward = files.flatMap((file) =>
      importsOf(file)
        .filter((target) => rank.get(unitOf(target))! > rank.get(unitOf(file))!)
        .map((target) => `${relative(SRC, file)} -> ${relative(SRC, target)}`),
    );
    expect(upward).toEqual([]);
  });

  it('the engine names no policy: it imports only its own files and the layers below it', () => {
    const engine = files.filter((f) => unitOf(f) === 'engine');
    const outside = engine.flatMap((f) => importsOf(f).filter((t) => !['engine', 'errors', 'config', 'arbiter', 'directive'].includes(unitOf(t))));
    expect(outside).toEqual([]);
  });
});
