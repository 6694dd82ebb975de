import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Every entry under a directory with what "unchanged" means for it: a directory its mode, a symlink its
 * mode and target, a file its mode, size, mtime and content hash. Links are not followed.
 */
export function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      const s = lstatSync(full);
      const key = relative(dir, full);
      if (s.isDirectory()) {
        out[key] = `dir ${s.mode}`;
        visit(full);
      } else if (s.isSymbolicLink()) out[key] = `link ${s.mode} -> ${readlinkSync(full)}`;
      else out[key] = `${s.mode} ${s.size} ${s.mtimeMs} ${s.isFile() ? createHash('sha256').update(readFileSync(full)).digest('hex') : ''}`;
    }
  };
  visit(dir);
  return out;
}
