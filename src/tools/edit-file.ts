import { z } from 'zod';
import { confineFile, refuseGitInternals } from './confine.js';
import { bytes } from './limits.js';
import { readConfined, writeConfined } from './safe-fs.js';
import { withinBudget } from './workspace-budget.js';
import { asText } from './text-file.js';
import { defineTool, toolSpec, ToolError } from './tool.js';

const Args = z.object({
  path: z.string().describe('File path relative to the workspace.'),
  old_text: z.string().describe('The exact text to replace, with enough surrounding lines to occur exactly once in the file.'),
  new_text: z.string().describe('The text to put in its place.'),
});

/** Where `needle` occurs in `text`, overlapping matches included (two overlapping matches are just as ambiguous). */
export function occurrences(text: string, needle: string): number[] {
  const at: number[] = [];
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) at.push(i);
  return at;
}

/** edit_file: replaces one exact, unique piece of a file. */
export const editFileTool = defineTool({
  spec: toolSpec('edit_file', 'Replace one exact piece of text in a file. old_text must occur exactly once (copy it exactly, whitespace included); the edit is refused otherwise.', Args),
  args: Args,
  summary: (a) => `edit_file ${a.path}`,
  async run(a, { root, budgetRoot, limits }) {
    if (a.old_text === '') throw new ToolError('old_text is empty; give the exact text to replace (use write_file to create a file)');
    const path = await confineFile(root, a.path);
    refuseGitInternals(path);
    const text = asText(await readConfined(root, path, limits.maxFileBytes), path.shown);
    const found = occurrences(text, a.old_text);
    if (found.length === 0) throw new ToolError(`old_text does not occur in ${path.shown}; read the file and copy the text exactly, whitespace included`);
    if (found.length > 1) throw new ToolError(`old_text occurs ${found.length} times in ${path.shown}; include more surrounding lines so it occurs exactly once`);
    const at = found[0]!;
    const next = text.slice(0, at) + a.new_text + text.slice(at + a.old_text.length);
    const data = Buffer.from(next, 'utf8');
    if (data.length > limits.maxFileBytes) throw new ToolError(`the edited file would be ${bytes(data.length)}, over the ${bytes(limits.maxFileBytes)} limit for one file`);
    await withinBudget(budgetRoot, limits, { size: data.length, replaced: Buffer.byteLength(text, 'utf8') }, () => writeConfined(root, { ...path, exists: true }, data));
    const line = text.slice(0, at).split('\n').length;
    return { ok: true, content: `edited ${path.shown} at line ${line}` };
  },
});
