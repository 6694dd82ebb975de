import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { cleanEnv } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';

const dir = mkdtempSync(join(tmpdir(), 'troupe-cold-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every file module a real `troupe run --demo` process loads, as a path in the repository (or node_modules/...). */
function loadedByDemoRun(): string[] {
  const list = join(dir, 'loaded.txt');
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(list)}, url + '\\n');\n  return next(url, context);\n}\n`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  execFileSync(process.execPath, ['--import', pathToFileURL(register).href, join(REPO_ROOT, 'dist', 'cli.js'), 'run', '--demo', 'a lighthouse game'], {
    env: { PATH: process.env.PATH ?? '', TROUPE_DATA_DIR: join(dir, 'data') },
    stdio: 'ignore',
  });
  return readFileSync(list, 'utf8')
    .trim()
    .split('\n')
    .map((url) => decodeURIComponent(new URL(url).pathname))
    .map((path) => (path.startsWith(`${REPO_ROOT}/`) ? path.slice(REPO_ROOT.length + 1) : path.replace(/.*\/node_modules\//, 'node_modules/')));
}

describe('cold start: what troupe run loads (issue 24, item 4)', () => {
  it('the CLI runs from its bundle: the launcher and dist/cli.cjs, no tsc module from dist/, zod and openai bundled, zod without its locales', () => {
    const loaded = loadedByDemoRun();
    // The launcher is the only module loaded from dist/: it compiles dist/cli.cjs itself, with V8's code cache.
    expect(loaded.filter((f) => f.startsWith('dist/'))).toEqual(['dist/cli.js']);
    // tsc's one-file-per-module layout loaded ~190 of troupe's modules and 71 of zod's (48 of them locales).
    expect(loaded.filter((f) => f.startsWith('node_modules/zod/') || f.startsWith('node_modules/openai/'))).toEqual([]);
    // Bundled, zod's index re-exported all 48 locales (250 KiB, compiled before the first request): only English is in.
    // (esbuild heads each module with its path: `// node_modules/zod/v4/locales/ar.js`, through a linked node_modules `// ../x/node_modules/…`.)
    const bundle = readFileSync(join(REPO_ROOT, 'dist', 'cli.cjs'), 'utf8');
    const locales = [...bundle.matchAll(/^\/\/ \S*node_modules\/zod\/v4\/locales\/(\S+)/gm)].map((m) => m[1]);
    expect(locales).toEqual(['en.js']);
  });

  it('troupe run sizes the heap for memory once, after its first answer is printed, not before', async () => {
    let stdout = '';
    const favoured: string[] = [];
    const code = await main(['run', '--demo', 'a lighthouse game'], {
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: () => true },
      stdin: Readable.from([]),
      env: cleanEnv(),
      cwd: REPO_ROOT,
      interactive: false,
      favourMemory: () => void favoured.push(stdout),
    });
    expect(code).toBe(0);
    expect(favoured).toHaveLength(1);
    // By then the first persona's answer is on stdout (the turn header and its words).
    expect(favoured[0]).toMatch(/▸ .*\(turn 1\)\n {2}\S/);
  });
});
