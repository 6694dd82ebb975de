import { dirname, resolve } from 'node:path';
import { readConfigText } from '../config/safe-read.js';
import type { WorkflowPlan } from '../workflow/run/plan.js';
import { workspaceFromIssue } from '../workflow/load/workspace-from.js';

/**
 * Why a resumed workflow session may not start its workspaces from the directory its stored plan names, or null.
 * A session document is data a cloned repository can ship (the data dir defaults to `.troupe/` in the working
 * directory) or anyone can edit, so its plan's `workspace.from` is trusted only as its workflow file declares it
 * now: the file at the plan's source must name the same directory (resolved from `cwd`, as when it was loaded),
 * and that directory must pass the loader's rule (workspace-from.ts) from `cwd`.
 */
export function storedWorkspaceProblem(plan: WorkflowPlan, cwd: string): string | null {
  const from = plan.workspace?.from;
  if (!plan.workspace || from === null || from === undefined) return null;
  const source = resolve(cwd, plan.source);
  let declared: unknown;
  try {
    declared = (JSON.parse(readConfigText(dirname(source), source)) as { workspace?: unknown }).workspace;
  } catch {
    return `workflow.plan.workspace.from: ${from} cannot be checked against ${plan.source} (missing or unreadable) — start the workflow again with troupe run --workflow`;
  }
  const named = declared !== null && typeof declared === 'object' ? (declared as { from?: unknown; git?: unknown }) : {};
  const git = named.git === true;
  if (typeof named.from !== 'string' || resolve(cwd, named.from) !== from || git !== plan.workspace.git)
    return `workflow.plan.workspace.from: ${from} is not what ${plan.source} names from ${cwd} — resume from the directory the run started in, or start it again with troupe run --workflow`;
  const issue = workspaceFromIssue(from, { cwd, file: source, shown: plan.source, git });
  return issue ? `workflow.plan.workspace.from: ${issue.problem} — ${issue.fix}` : null;
}
