import { resolve } from 'node:path';
import { formatIssue } from '../../config/issues.js';
import { loadTeam } from '../../config/load-team.js';
import { teamDir } from '../../runtime/team-paths.js';
import type { CliArgs } from '../args.js';
import { complainer, printer, type CliIo } from '../io.js';

/** `troupe validate`: checks a team's config and reports every problem at once. */
export async function run(args: CliArgs, io: CliIo): Promise<number> {
  const dir = args.team ? resolve(io.cwd, args.team) : teamDir();
  const result = loadTeam(dir);
  if (!result.team) {
    const complain = complainer(io);
    for (const issue of result.issues) complain(formatIssue(issue));
    complain(`${result.issues.length} problem(s) in ${dir}`);
    return 1;
  }
  const t = result.team;
  const majors = t.team.majors.filter((m) => m.kind === 'team').length;
  printer(io)(`ok: ${t.team.name} — ${t.personas.length} personas in ${majors} majors, initial ${t.team.initial}`);
  return 0;
}
