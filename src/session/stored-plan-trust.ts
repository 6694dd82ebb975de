import { dirname, relative, resolve } from 'node:path';
import type { LoadedTeam } from '../config/load-team.js';
import { readConfigText } from '../config/safe-read.js';
import { UserError } from '../errors.js';
import { teamDir as shippedTeamDir } from '../package-root.js';
import type { WorkflowPlan } from '../workflow/run/plan.js';
import { loadWorkflow, type WorkflowLoadResult } from '../workflow/load/load-workflow.js';
import { workspaceFromIssue } from '../workflow/load/workspace-from.js';
import { widenedGrant } from './plan-grants.js';

/** What a resumed session knows of where its workflow was loaded from: the directory, the environment, its team and --roles. */
export interface StoredPlanSources {
  cwd: string;
  env?: Record<string, string | undefined>;
  team?: LoadedTeam | null;
  /** The roles folder or file the resuming command was given (--roles; default: TROUPE_ROLES). */
  roles?: string;
}

/**
 * Why a resumed workflow session may not run the plan stored in its document, or null. A session document is
 * data a cloned repository can ship (the data dir defaults to `.troupe/` in the working directory) or anyone can
 * edit, so what its plan lets agents do outside the sandbox is trusted only as its workflow file gives it now:
 * the workspace it starts from (storedWorkspaceProblem) and each agent's tools and command policy (the workflow
 * loaded again with the same role sources: stored ⊆ current).
 */
export function storedPlanProblem(plan: WorkflowPlan, sources: StoredPlanSources): string | null {
  return storedWorkspaceProblem(plan, sources.cwd) ?? storedGrantsProblem(plan, sources);
}

/**
 * Why a resumed workflow session may not start its workspaces from the directory its stored plan names, or null:
 * the file at the plan's source must name the same directory (resolved from `cwd`, as when it was loaded), and
 * that directory must pass the loader's rule (workspace-from.ts) from `cwd`.
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

/** What decides which workflow file a resumed session's plan is checked against: the document's seal, or the workflow the user names. */
export interface PlanSourceTrust {
  /** Whether the document's seal (source-seal.ts) holds for its team directory and the plan's source. */
  sealed: boolean;
  /** The workflow the user names for it (troupe resume --workflow: a name, a .json file or a folder), if any. */
  named?: string;
  /** The session's id, for the command a refusal gives. */
  id: string;
}

/**
 * The plan as its checks (storedPlanProblem) take it: with the source its document names when the document's seal
 * holds, with the file of the workflow the user names when they name one, or why neither can be trusted. A
 * document anyone can edit could otherwise name another file (a shipped workflow whose roles allow more) and
 * have its own agents' grants measured against that one.
 */
export function trustedPlanSource(plan: WorkflowPlan, sources: StoredPlanSources, trust: PlanSourceTrust): WorkflowPlan | { problem: string } {
  const again = `troupe resume ${trust.id.slice(0, 8)} --workflow <the workflow it runs>`;
  if (trust.named !== undefined) {
    const loaded = loadNow({ ...plan, source: trust.named }, sources);
    if (typeof loaded === 'string' || !loaded.plan) {
      return { problem: `--workflow ${trust.named}: does not load (${whyNotLoaded(loaded, plan)}) — ${again}` };
    }
    if (loaded.plan.name !== plan.name) return { problem: `--workflow ${trust.named}: is the workflow ${loaded.plan.name}, but the session runs ${plan.name} — ${again}` };
    return { ...plan, source: loaded.plan.source };
  }
  if (trust.sealed) return plan;
  return {
    problem: `workflow.plan.source: ${plan.source} was not recorded by your troupe (the document has no seal of yours: it was made elsewhere or edited) — name the workflow it runs yourself: ${again}`,
  };
}

/**
 * Why a session's document may not have the team directory it names opened (its personas' prompts and models), or
 * null: the shipped team, or any directory when the document's seal holds. The caller says what to do instead
 * (resume: name it with --team; show: name the agents by id).
 */
export function storedTeamProblem(dir: string, sealed: boolean): string | null {
  if (sealed || resolve(dir) === resolve(shippedTeamDir())) return null;
  return `team.dir: ${dir} was not recorded by your troupe (the document has no seal of yours: it was made elsewhere or edited)`;
}

const FIX = 'resume with the --roles the run had, from the directory it started in, or start it again with troupe run --workflow';

/** The workflow at a stored plan's source as it loads now (an entry of a workflows array by its name), or why it does not. */
function loadNow(plan: WorkflowPlan, sources: StoredPlanSources): WorkflowLoadResult | string {
  const options = { cwd: sources.cwd, env: sources.env ?? {}, team: sources.team ?? null, ...(sources.roles !== undefined ? { roles: sources.roles } : {}) };
  // A role chat's source is its `role:<id>`; a file's is its absolute path, without the `#name` of an entry of a list.
  const wanted = plan.chat ? [plan.source] : [plan.source, `${plan.source}#${plan.name}`];
  let first: WorkflowLoadResult | string | null = null;
  for (const w of wanted) {
    let result: WorkflowLoadResult;
    try {
      result = loadWorkflow(w, options);
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      // The problem, without the fix the loader gives a command naming a workflow (FIX says what to do here).
      first ??= error.message.split(' — ')[0]!;
      continue;
    }
    if (result.plan?.name === plan.name) return result;
    first ??= result;
  }
  return first!;
}

/** Why a workflow did not load (its first issue), or that it holds no workflow of the plan's name. */
function whyNotLoaded(loaded: WorkflowLoadResult | string, plan: WorkflowPlan): string {
  const issue = typeof loaded === 'string' ? loaded : loaded.issues[0];
  return typeof issue === 'string' ? issue : issue ? `${issue.file}${issue.field ? `: ${issue.field}` : ''}: ${issue.problem}` : `it holds no workflow ${plan.name}`;
}

/** Why a stored plan's agents may do more than the workflow at its source gives them now (or it does not load), or null. */
function storedGrantsProblem(plan: WorkflowPlan, sources: StoredPlanSources): string | null {
  const shown = plan.chat ? plan.source : relative(sources.cwd, resolve(sources.cwd, plan.source)) || plan.source;
  const loaded = loadNow(plan, sources);
  if (typeof loaded === 'string' || !loaded.plan) {
    return `workflow.plan: what its agents may do cannot be checked against ${shown}, which does not load now (${whyNotLoaded(loaded, plan)}) — ${FIX}`;
  }
  if (loaded.plan.name !== plan.name) return `workflow.plan: what its agents may do cannot be checked against ${shown}, which holds the workflow ${loaded.plan.name} now, not ${plan.name} — ${FIX}`;
  const widened = widenedGrant(plan, loaded.plan);
  return widened ? `${widened.field}: ${widened.stored} is more than ${shown} gives now (${widened.current}) — ${FIX}` : null;
}
