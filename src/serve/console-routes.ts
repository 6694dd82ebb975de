import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { PACKAGE_ROOT } from '../package-root.js';

/** Where `npm run build` puts the console (built from src/console/ by scripts/build-console.mjs). */
export const CONSOLE_DIR = join(PACKAGE_ROOT, 'dist', 'console');

/** The console's files, by the path they are served at, with their content types. */
const FILES: Record<string, string> = {
  '/': 'text/html; charset=utf-8',
  '/console.js': 'text/javascript; charset=utf-8',
  '/console.css': 'text/css; charset=utf-8',
};

const cache = new Map<string, string>();

/** A console file as built (read once); null when the console was not built. */
function consoleFile(path: string): string | null {
  const name = path === '/' ? 'index.html' : path.slice(1);
  if (!cache.has(name)) {
    try {
      cache.set(name, readFileSync(join(CONSOLE_DIR, name), 'utf8'));
    } catch {
      return null;
    }
  }
  return cache.get(name)!;
}

// The console reaches only this server: no inline script, no other origin, no framing.
const POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Serves the web console at `/` (its HTML, script and style), or a one-line page saying how to build it. */
export function consoleRoutes(app: Hono): void {
  app.get('/favicon.ico', (c) => c.body(null, 204));
  for (const [path, type] of Object.entries(FILES)) {
    app.get(path, (c) => {
      const body = consoleFile(path);
      if (body === null) return c.text(`the console is not built (${CONSOLE_DIR} is missing): run npm run build\n`, 503);
      return c.body(body, 200, { 'content-type': type, 'content-security-policy': POLICY, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' });
    });
  }
}
