import { lstat } from 'node:fs/promises';
import { z } from 'zod';
import { confine } from './confine.js';
import { defineTool, toolSpec, ToolError } from './tool.js';
import { walk } from './walk.js';

const Args = z.object({
  path: z.string().optional().describe('Directory relative to the workspace; default: the whole workspace.'),
  max_depth: z.number().int().min(1).optional().describe('How many directory levels to go down; default: all.'),
});

const MARK = { dir: '/', symlink: '@', other: '?', file: '' } as const;

/** list_files: the files under a workspace directory, recursively, in sorted order, capped; `.git` is skipped. */
export const listFilesTool = defineTool({
  spec: toolSpec('list_files', 'List the files under a directory of the workspace, recursively (directories end in /, symbolic links in @). .git is skipped.', Args),
  args: Args,
  summary: (a) => `list_files ${a.path ?? '.'}`,
  async run(a, { root, limits }) {
    const dir = await confine(root, a.path ?? '.');
    if (!dir.exists) throw new ToolError(`"${dir.shown}" does not exist`);
    // The real path has no link left in it: lstat tells what is there (the walk checks again as it opens it).
    if (!(await lstat(dir.real)).isDirectory()) throw new ToolError(`"${dir.shown}" is a file, not a directory; use read_file`);
    const lines: string[] = [];
    let stopped = false;
    for await (const entry of walk(root, { from: dir.shown, ...(a.max_depth !== undefined ? { maxDepth: a.max_depth } : {}) })) {
      if (lines.length >= limits.maxListEntries) {
        stopped = true;
        break;
      }
      lines.push(entry.path + MARK[entry.kind]);
    }
    if (lines.length === 0) return { ok: true, content: `(${dir.shown} is empty)` };
    const note = stopped ? `\n[listing stopped at ${limits.maxListEntries} entries; list a subdirectory or pass max_depth to see the rest]` : '';
    return { ok: true, content: lines.join('\n') + note };
  },
});
