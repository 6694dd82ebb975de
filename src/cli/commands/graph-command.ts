import { toMermaid } from '../../graph.js';
import type { CliArgs } from '../args.js';
import { teamFor } from '../common.js';
import { printer, type CliIo } from '../io.js';

/** `troupe graph`: the team as a Mermaid state diagram. */
export async function run(args: CliArgs, io: CliIo): Promise<number> {
  printer(io)(toMermaid(teamFor(args, io).team.def));
  return 0;
}
