import { lstat } from 'node:fs/promises';
import { z } from 'zod';
import { confine } from './confine.js';
import { compileRegex, regexSearch, type LineMatch } from './regex-search.js';
import { readConfined, readLeaf } from './safe-fs.js';
import { looksBinary } from './text-file.js';
import { defineTool, toolSpec, ToolError, type ToolContext } from './tool.js';
import { walk } from './walk.js';

const Args = z.object({
  pattern: z.string().min(1).describe('The text to look for (or a JavaScript regular expression when regex is true).'),
  path: z.string().optional().describe('File or directory relative to the workspace; default: the whole workspace.'),
  regex: z.boolean().optional().describe('Treat pattern as a regular expression; default false (literal text).'),
  ignore_case: z.boolean().optional().describe('Match regardless of case; default false.'),
});

/** The text files to search under a path, within the byte budget; binary, oversized and untouchable files are left out and counted. */
async function gather(a: z.infer<typeof Args>, { root, limits }: ToolContext): Promise<{ files: { path: string; text: string }[]; skipped: number; budgetHit: boolean }> {
  const start = await confine(root, a.path ?? '.');
  if (!start.exists) throw new ToolError(`"${start.shown}" does not exist`);
  const files: { path: string; text: string }[] = [];
  let skipped = 0;
  let total = 0;
  const keep = (path: string, data: Buffer | null): void => {
    if (!data || looksBinary(data)) skipped++;
    else {
      total += data.length;
      files.push({ path, text: data.toString('utf8') });
    }
  };
  // The real path has no link left in it: lstat tells what is there (the reads check again as they open).
  if (!(await lstat(start.real)).isDirectory()) {
    keep(start.shown, await readConfined(root, start, limits.maxFileBytes).catch(() => null));
    return { files, skipped, budgetHit: false };
  }
  for await (const entry of walk(root, { from: start.shown })) {
    if (entry.kind !== 'file') continue;
    const size = (await entry.dir.lstat(entry.name))?.size ?? 0;
    if (size > limits.maxFileBytes) {
      skipped++;
      continue;
    }
    if (total + size > limits.maxSearchBytes) return { files, skipped, budgetHit: true };
    // A FIFO, device, socket or multiply-linked file swapped in is refused by the read, not waited on.
    keep(entry.dir.showOf(entry.name), await readLeaf(entry.dir, entry.name, limits.maxFileBytes).catch(() => null));
  }
  return { files, skipped, budgetHit: false };
}

/** Literal search, linear in the text. */
function literalSearch(files: { path: string; text: string }[], pattern: string, ignoreCase: boolean, max: number): { matches: LineMatch[]; more: boolean } {
  const needle = ignoreCase ? pattern.toLowerCase() : pattern;
  const matches: LineMatch[] = [];
  for (const f of files) {
    const lines = f.text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (!(ignoreCase ? line.toLowerCase() : line).includes(needle)) continue;
      if (matches.length >= max) return { matches, more: true };
      matches.push([f.path, i + 1, line.slice(0, 300)]);
    }
  }
  return { matches, more: false };
}

/** search_files: lines matching literal text or a regular expression, with file and line number, capped. */
export const searchFilesTool = defineTool({
  spec: toolSpec(
    'search_files',
    'Search the text files of the workspace for lines containing a text (or matching a regular expression when regex is true). Shows path:line: text. .git, binary and very large files are skipped.',
    Args,
  ),
  args: Args,
  summary: (a) => `search_files ${JSON.stringify(a.pattern).slice(0, 80)}${a.path ? ` in ${a.path}` : ''}`,
  async run(a, context) {
    const regex = a.regex ? compileRegex(a.pattern, a.ignore_case ?? false) : null;
    const { files, skipped, budgetHit } = await gather(a, context);
    const max = context.limits.maxSearchMatches;
    const { matches, more } = regex ? await regexSearch(files, regex, max, context.limits.searchTimeoutMs, context.signal) : literalSearch(files, a.pattern, a.ignore_case ?? false, max);
    const notes = [
      more ? `[stopped at ${max} matches; narrow the pattern or the path]` : '',
      budgetHit ? `[only the first ${files.length} files were searched (the search reads at most ${context.limits.maxSearchBytes} bytes); narrow the path]` : '',
      skipped ? `[${skipped} binary, oversized or unreadable file(s) skipped]` : '',
    ].filter(Boolean);
    const body = matches.length ? matches.map(([p, n, t]) => `${p}:${n}: ${t}`).join('\n') : `no matches in ${files.length} file(s)`;
    return { ok: true, content: [body, ...notes].join('\n') };
  },
});
