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
  ['kinds', 'warming'],
  ['store'],
  ['report'],
  ['session'],
  ['commands'],
  ['ui', 'serve', 'console'],
  ['cli', 'index', 'testing', 'launch'],
];

const SRC = join(REPO_ROOT, 'src');
const rank = new Map(LAYERS.flatMap((names, i) => names.map((n) => [n, i] as const)));
/** The folder a file is in, or a top-level file's name without its extension (imports name `.js`, files are `.ts`). */
const unitOf = (file: string) =>
  relative(SRC, file)
    .split(sep)[0]!
    .replace(/\.(tsx?|js)$/, '');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}

/** Every relative import (static, dynamic and `declare module`) of a file, as the file it names. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import\s*\(|declare module)\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => normalize(join(dirname(file), m[1]!)));
}

/** Every group of files that import one another in a circle (Tarjan's strongly connected components of more than one file). */
function circles(files: string[]): string[][] {
  const known = new Set(files);
  const edges = new Map(
    files.map((f) => [
      f,
      importsOf(f)
        .flatMap((t) => [t.replace(/\.js$/, '.ts'), t.replace(/\.js$/, '.tsx')])
        .filter((t) => known.has(t)),
    ]),
  );
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (f: string) => {
    index.set(f, index.size);
    low.set(f, index.get(f)!);
    stack.push(f);
    for (const t of edges.get(f)!) {
      if (!index.has(t)) {
        visit(t);
        low.set(f, Math.min(low.get(f)!, low.get(t)!));
      } else if (stack.includes(t)) low.set(f, Math.min(low.get(f)!, index.get(t)!));
    }
    if (low.get(f) !== index.get(f)) return;
    const group: string[] = [];
    let t: string;
    do {
      t = stack.pop()!;
      group.push(relative(SRC, t));
    } while (t !== f);
    if (group.length > 1) found.push(group.sort());
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return found;
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

  it('no file imports itself through others (no import circles)', () => {
    expect(circles(files)).toEqual([]);
  });

  it('no type name is exported by two files (one name, one shape)', () => {
    const owners = new Map<string, string[]>();
    for (const f of files) for (const m of readFileSync(f, 'utf8').matchAll(/^export (?:type|interface) ([A-Za-z0-9_]+)/gm)) owners.set(m[1]!, [...(owners.get(m[1]!) ?? []), relative(SRC, f)]);
    expect([...owners].filter(([, where]) => where.length > 1)).toEqual([]);
  });

  it('the engine names no policy: it imports only its own files and the layers below it', () => {
    const engine = files.filter((f) => unitOf(f) === 'engine');
    const outside = engine.flatMap((f) => importsOf(f).filter((t) => !['engine', 'errors', 'config', 'arbiter', 'directive'].includes(unitOf(t))));
    expect(outside).toEqual([]);
  });
});
