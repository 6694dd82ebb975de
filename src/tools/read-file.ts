import { z } from 'zod';
import { confineFile } from './confine.js';
import { readConfined } from './safe-fs.js';
import { asText } from './text-file.js';
import { defineTool, toolSpec } from './tool.js';

const Args = z.object({
  path: z.string().describe('File path relative to the workspace.'),
  offset: z.number().int().min(1).optional().describe('First line to show (1-based); default 1.'),
  limit: z.number().int().min(1).optional().describe('Most lines to show; default: as many as fit.'),
});

/** read_file: a text file of the workspace, whole or a range of lines, paged when it is long. */
export const readFileTool = defineTool({
  spec: toolSpec('read_file', 'Read a text file in the workspace. Long files are shown a page at a time; pass offset (a line number) to read on.', Args),
  args: Args,
  summary: (a) => `read_file ${a.path}${a.offset ? `:${a.offset}` : ''}`,
  async run(a, { root, limits }) {
    const path = await confineFile(root, a.path);
    const text = asText(await readConfined(root, path, limits.maxFileBytes), path.shown);
    if (a.offset === undefined && a.limit === undefined && text.length <= limits.maxResultChars) return { ok: true, content: text };
    // The page leaves room for the note that tells the model how to read on.
    const page = Math.max(1, limits.maxResultChars - 200);
    const lines = text.split('\n');
    const first = (a.offset ?? 1) - 1;
    if (first >= lines.length && !(first === 0 && text === '')) return { ok: true, content: `[${path.shown} has ${lines.length} line(s); offset ${a.offset} is past its end]` };
    let size = 0;
    let end = first;
    const last = Math.min(lines.length, first + (a.limit ?? lines.length));
    while (end < last && size + lines[end]!.length + 1 <= page) size += lines[end++]!.length + 1;
    // One line longer than a whole page is cut, not skipped, so reading always moves on.
    if (end === first)
      return {
        ok: true,
        content: `${lines[first]!.slice(0, page)}\n[line ${first + 1} of ${path.shown} is ${lines[first]!.length} characters; only its start is shown; call read_file with offset ${first + 2} to read on]`,
      };
    const body = lines.slice(first, end).join('\n');
    const more = end < lines.length ? `\n[lines ${first + 1}-${end} of ${lines.length} shown; call read_file with offset ${end + 1} to read on]` : '';
    return { ok: true, content: body + more };
  },
});
