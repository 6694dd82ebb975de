import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Where the sandbox worker starts: the compiled worker.js beside this module; when running from source
 * (vitest, tsx), a small module that registers tsx in the worker and then loads worker.ts, since a worker
 * thread does not inherit the parent's TypeScript loader.
 */
export function workerEntry(): URL {
  const compiled = new URL('./worker.js', import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return compiled;
  const source = new URL('./worker.ts', import.meta.url);
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href;
  const boot = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(source.href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(boot)}`);
}
