import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configJsonSchemas } from '../../kinds/json-schema.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import type { CliArgs } from '../args.js';
import { printer, type CliIo } from '../io.js';

/** `troupe schemas [--check]`: writes (or checks) the JSON Schemas in schemas/ from the zod schemas. */
export async function run(args: CliArgs, io: CliIo): Promise<number> {
  const dir = join(PACKAGE_ROOT, 'schemas');
  const stale: string[] = [];
  for (const [file, text] of Object.entries(configJsonSchemas())) {
    const path = join(dir, file);
    let current = '';
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (current === text) continue;
    stale.push(file);
    if (!args.check) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path, text);
    }
  }
  if (args.check && stale.length > 0) {
    io.stderr.write(`schemas out of date: ${stale.join(', ')} — run npm run schemas\n`);
    return 1;
  }
  printer(io)(args.check ? 'schemas up to date' : stale.length ? `wrote ${stale.join(', ')}` : 'schemas up to date');
  return 0;
}
