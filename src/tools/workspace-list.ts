import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_RECORD_BYTES, WorkspaceSchema } from './workspace-record.js';

/**
 * The workspaces a session's agents made under `<root>/workspaces/`, by their records: name and directory,
 * sorted by name. Records that are not regular files (a link, a FIFO), too large, or not workspace records
 * are left out, as are workspaces whose directory is gone. A missing root is no workspaces.
 */
export async function listWorkspaces(root: string): Promise<{ name: string; dir: string }[]> {
  const parent = join(root, 'workspaces');
  const entries = await readdir(parent, { withFileTypes: true }).catch(() => []);
  const found: { name: string; dir: string }[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.json')) continue;
    const path = join(parent, entry.name);
    const info = await lstat(path).catch(() => null);
    if (!info?.isFile() || info.size > MAX_RECORD_BYTES) continue;
    try {
      const record = WorkspaceSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
      if (!record.success) continue;
      const dir = await lstat(record.data.dir).catch(() => null);
      if (dir?.isDirectory()) found.push({ name: record.data.name, dir: record.data.dir });
    } catch {
      // not JSON: not a workspace record
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}
