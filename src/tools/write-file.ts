import { lstat } from 'node:fs/promises';
import { z } from 'zod';
import { confineFile, refuseGitInternals } from './confine.js';
import { bytes } from './limits.js';
import { writeConfined } from './safe-fs.js';
import { missingFolders, withinBudget } from './workspace-budget.js';
import { defineTool, toolSpec, ToolError } from './tool.js';

const Args = z.object({
  path: z.string().describe('File path relative to the workspace; missing directories are created.'),
  content: z.string().describe('The whole new content of the file.'),
});

/** write_file: creates or replaces a file in the workspace with the given text. */
export const writeFileTool = defineTool({
  spec: toolSpec('write_file', 'Create a file in the workspace, or replace its whole content. Use edit_file to change part of a file.', Args),
  args: Args,
  summary: (a) => `write_file ${a.path}`,
  async run(a, { root, budgetRoot, limits }) {
    const data = Buffer.from(a.content, 'utf8');
    if (data.length > limits.maxFileBytes) throw new ToolError(`the content is ${bytes(data.length)}, over the ${bytes(limits.maxFileBytes)} limit for one file`);
    const path = await confineFile(root, a.path);
    refuseGitInternals(path);
    const replaced = path.exists ? ((await lstat(path.real).catch(() => null))?.size ?? 0) : null;
    const folders = replaced === null ? await missingFolders(root, path.real) : 0;
    const { created } = await withinBudget(budgetRoot, limits, { size: data.length, replaced, folders }, () => writeConfined(root, path, data));
    return { ok: true, content: `${created ? 'created' : 'wrote'} ${path.shown} (${bytes(data.length)})` };
  },
});
