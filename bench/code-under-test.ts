import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { serveApp as ServeApp } from '../src/serve/app.js';
import type { SessionHost as Host } from '../src/serve/host.js';
import type { listen as Listen } from '../src/serve/listen.js';
import type { LowdbStore as Store } from '../src/store/lowdb-store.js';
import type { openTeam as OpenTeam } from '../src/team/open-team.js';

// BENCH_CODE_DIR: another checkout's root (built), to measure its server against this one's in the same conditions.
const root = process.env.BENCH_CODE_DIR ?? join(import.meta.dirname, '..');

/**
 * Where the server under measure is loaded from: `dist` (tsc's output, what `troupe serve` runs; `npm run bench`
 * builds it first) unless BENCH_CODE=src. Through tsx, every function expression of src/ is wrapped in esbuild's
 * `__name` (a defineProperty each time a closure is made), a cost the shipped code does not have, and the floor
 * server's library (Hono, in node_modules) is never transformed: measuring src/ charged troupe alone for it.
 */
export const CODE: 'dist' | 'src' = process.env.BENCH_CODE === 'src' ? 'src' : 'dist';

/** The serve modules from the chosen tree. A stale dist (older than src/serve) is refused with the fix. */
export async function serveModules(): Promise<{ serveApp: typeof ServeApp; SessionHost: typeof Host; listen: typeof Listen; LowdbStore: typeof Store; openTeam: typeof OpenTeam }> {
  const base = join(root, CODE);
  if (CODE === 'dist') {
    const built = join(root, 'dist', 'serve', 'app.js');
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(root, 'src', 'serve', 'app.ts')).mtimeMs) {
      throw new Error('bench: dist/ is missing or older than src/serve: run `npm run build` first (or BENCH_CODE=src)');
    }
  }
  const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(base, `${path}${CODE === 'dist' ? '.js' : '.ts'}`)).href)) as T;
  const [{ serveApp }, { SessionHost }, { listen }, { LowdbStore }, { openTeam }] = await Promise.all([
    load<{ serveApp: typeof ServeApp }>('serve/app'),
    load<{ SessionHost: typeof Host }>('serve/host'),
    load<{ listen: typeof Listen }>('serve/listen'),
    load<{ LowdbStore: typeof Store }>('store/lowdb-store'),
    load<{ openTeam: typeof OpenTeam }>('team/open-team'),
  ]);
  return { serveApp, SessionHost, listen, LowdbStore, openTeam };
}
