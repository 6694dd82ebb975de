import type { CliArgs } from '../args.js';
import { printer, troupeCommand, type CliIo } from '../io.js';

/** `troupe workflows`: the workflows troupe can run (project ones first, then the shipped ones), with their descriptions. */
export async function run(_args: CliArgs, io: CliIo): Promise<number> {
  const { listWorkflows } = await import('../../workflow/load/list.js');
  const { workflowDirs } = await import('../../workflow/load/locate.js');
  const entries = listWorkflows(workflowDirs(io.cwd, io.env), io.cwd);
  const write = printer(io);
  if (entries.length === 0) {
    write('no workflows found — put one in workflows/<name>.json (see the README)');
    return 0;
  }
  const width = Math.max(...entries.map((e) => e.name.length));
  for (const e of entries) write(`${e.name.padEnd(width)}  ${e.broken ? `(cannot be read: ${e.broken})` : e.description}${e.shipped ? '' : `  [${e.where}]`}`);
  write('');
  write(`run one: ${troupeCommand(io)} run --workflow <name> --input "<text or JSON>"  ·  in the UI: /workflow <name> <input>`);
  return 0;
}
