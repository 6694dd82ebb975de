import { join, resolve } from 'node:path';
import { formatIssue, type ConfigIssue } from '../../config/issues.js';
import { loadTeam } from '../../config/load-team.js';
import { PACKAGE_ROOT, teamDir } from '../../package-root.js';
import type { CliArgs } from '../args.js';
import { complainer, printer, type CliIo } from '../io.js';

/**
 * `troupe validate`: checks the team and every workflow (or, with --workflow, that one) and reports
 * every problem at once as `file: field: problem — fix`.
 */
export async function run(args: CliArgs, io: CliIo): Promise<number> {
  const dir = args.team ? resolve(io.cwd, args.team) : teamDir();
  const result = loadTeam(dir);
  const write = printer(io);
  const complain = complainer(io);
  const issues: ConfigIssue[] = [...result.issues];
  const { loadWorkflow } = await import('../../workflow/load/load-workflow.js');
  const { workflowDirs, workflowNames, locationPath } = await import('../../workflow/load/locate.js');
  const options = { cwd: io.cwd, env: io.env, team: result.team, ...(args.roles !== undefined ? { roles: args.roles } : {}) };
  // The shipped workflows are written for the shipped team (greenlight_review plays its personas): checked with it only.
  const shipped = join(PACKAGE_ROOT, 'workflows');
  const dirs = workflowDirs(io.cwd, io.env).filter((d) => !args.team || d !== shipped);
  const names = args.workflow !== undefined ? [args.workflow] : workflowNames(dirs).map((w) => locationPath(w.location));
  let workflows = 0;
  for (const name of names) {
    const checked = loadWorkflow(name, options);
    if (checked.plan) workflows++;
    // A workflow naming a persona of a broken team is reported once, as the team's problem.
    issues.push(...checked.issues.filter((i) => result.team || !/unknown role/.test(i.problem)));
  }
  if (issues.length > 0) {
    for (const issue of issues) complain(formatIssue(issue));
    complain(`${issues.length} problem(s)`);
    return 1;
  }
  const t = result.team!;
  const majors = t.team.majors.filter((m) => m.kind === 'team').length;
  if (args.workflow === undefined) write(`ok: ${t.team.name} — ${t.personas.length} personas in ${majors} majors, initial ${t.team.initial}`);
  write(`ok: ${workflows} workflow(s)${args.workflow !== undefined ? ` (${args.workflow})` : ''}`);
  return 0;
}
