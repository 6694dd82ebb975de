import { toMermaid } from '../../report/mermaid.js';
import type { CliArgs } from '../args.js';
import { teamFor, workflowFor } from '../common.js';
import { printer, type CliIo } from '../io.js';

/** `troupe graph [--workflow W]`: the team (or a workflow) as a Mermaid state diagram. */
export async function run(args: CliArgs, io: CliIo): Promise<number> {
  const { team } = teamFor(args, io);
  if (args.workflow !== undefined) {
    const { workflowMermaid } = await import('../../workflow/graph.js');
    printer(io)(workflowMermaid(await workflowFor(args.workflow, io, team, args.roles)));
    return 0;
  }
  printer(io)(toMermaid(team.def));
  return 0;
}
