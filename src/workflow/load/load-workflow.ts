import { dirname, join, relative } from 'node:path';
import type { LoadedTeam } from '../../config/load-team.js';
import { ConfigError, zodIssues, type ConfigIssue } from '../../config/issues.js';
import { assertDirInside, readConfigText, UnreadableFile } from '../../config/safe-read.js';
import { parseConfigJson } from '../../config/config-json.js';
import { salvage } from '../../config/salvage.js';
import { WorkflowConfigSchema, type WorkflowConfig } from '../config/workflow-schema.js';
import type { AgentPlan, WorkflowPlan } from '../run/plan.js';
import { MAX_DEPTH } from '../run/constants.js';
import { checkWorkflow } from './check.js';
import { scriptFunctions } from './code.js';
import { locateSubWorkflow, locateWorkflow, workflowDirs, type WorkflowLocation } from './locate.js';
import { normaliseWorkflow } from './normalise.js';
import { readRoles, resolveAgent } from './roles.js';

/** Where workflows are looked up and what they may use: the working directory, the workflow directories, the team whose personas are roles. */
export interface WorkflowLoadOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Workflow directories (default: the project's workflows/, then the shipped ones). */
  dirs?: readonly string[];
  /** The team whose personas workflows may name as roles. */
  team?: LoadedTeam | null;
}

/** A loaded workflow: the plan when it is clean, every problem found, and where it is. */
export interface WorkflowLoadResult {
  plan: WorkflowPlan | null;
  issues: ConfigIssue[];
  location: WorkflowLocation;
}

interface Loader {
  options: WorkflowLoadOptions;
  dirs: readonly string[];
  issues: ConfigIssue[];
  /** Files being loaded (for cycles). */
  stack: string[];
}

const show = (loader: Loader, path: string) => relative(loader.options.cwd, path) || path;

function readConfig(loader: Loader, location: WorkflowLocation): { config: WorkflowConfig; script: string | null } | null {
  const shown = show(loader, location.file);
  let text: string;
  let script: string | null = null;
  try {
    // A workflow folder found in a workflows directory is read inside it: the folder itself must be there, not linked in.
    if (location.home !== null && location.dir !== location.home) assertDirInside(location.home, location.dir, `${location.name}/`);
    text = readConfigText(dirname(location.file), location.file);
    if (location.script) script = readConfigText(location.dir, location.script);
  } catch (error) {
    if (!(error instanceof UnreadableFile)) throw error;
    loader.issues.push({ file: shown, field: '', problem: error.problem, fix: error.fix });
    return null;
  }
  const raw = parseConfigJson(text, shown, loader.issues);
  if (!raw) return null;
  const { salvaged, error } = salvage(WorkflowConfigSchema, raw.value);
  if (error) loader.issues.push(...zodIssues(shown, error));
  // A file its schema refused is still cross-checked when its states are readable (unknown keys dropped),
  // so one run names every problem; its plan is never built (the issues above stop that).
  if (!salvaged || salvaged.value.states === undefined) return null;
  return { config: salvaged.value as WorkflowConfig, script };
}

function load(loader: Loader, location: WorkflowLocation): WorkflowPlan | null {
  const shown = show(loader, location.file);
  const read = readConfig(loader, location);
  if (!read) return null;
  const { config, script } = read;
  const before = loader.issues.length;
  loader.stack.push(location.file);
  const subWorkflows: Record<string, WorkflowPlan> = {};
  const found = new Set<string>();
  config.states.forEach((s, i) => {
    const name = s.action?.sub_workflow;
    if (name === undefined || found.has(name)) return;
    const sub = locateSubWorkflow(name, location, loader.dirs);
    if (!sub) return;
    found.add(name);
    if (loader.stack.includes(sub.file)) {
      const cycle = [...loader.stack.slice(loader.stack.indexOf(sub.file)), sub.file].map((f) => show(loader, f)).join(' -> ');
      loader.issues.push({ file: shown, field: `states[${i}].action.sub_workflow`, problem: `sub-workflows form a cycle (${cycle})`, fix: 'a workflow may not run itself, directly or through others' });
      return;
    }
    if (loader.stack.length >= MAX_DEPTH) {
      loader.issues.push({ file: shown, field: `states[${i}].action.sub_workflow`, problem: `sub-workflows nest deeper than ${MAX_DEPTH}`, fix: 'flatten the nesting' });
      return;
    }
    const plan = load(loader, sub);
    if (plan) subWorkflows[name] = plan;
  });
  loader.stack.pop();
  loader.issues.push(...checkWorkflow(config, { file: shown, subWorkflows: found, scriptFunctions: scriptFunctions(script), hasScript: script !== null }));
  const roleFiles = [location.dir, location.home, ...loader.dirs]
    .filter((d): d is string => d !== null)
    .map((d) => join(d, 'roles.json'))
    .filter((f, i, all) => all.indexOf(f) === i)
    .map((path) => ({ path, shown: show(loader, path) }));
  const roles = readRoles(roleFiles, loader.issues);
  const agents: AgentPlan[] = [];
  config.agents.forEach((a, i) => {
    const agent = resolveAgent({ ...a, file: shown, field: `agents[${i}]` }, roles, loader.options.team ?? null, loader.issues);
    if (agent) agents.push(agent);
  });
  if (loader.issues.length > before) return null;
  return normaliseWorkflow(config, { agents, subWorkflows, script, source: location.file, cwd: loader.options.cwd });
}

/** Loads a workflow by name or path with its roles and sub-workflows, collecting every problem. */
export function loadWorkflow(wanted: string, options: WorkflowLoadOptions): WorkflowLoadResult {
  const dirs = options.dirs ?? workflowDirs(options.cwd, options.env);
  const location = locateWorkflow(wanted, { cwd: options.cwd, dirs });
  const loader: Loader = { options, dirs, issues: [], stack: [] };
  const plan = load(loader, location);
  return { plan: loader.issues.length === 0 ? plan : null, issues: loader.issues, location };
}

/** Loads a workflow or throws a ConfigError listing every problem (a name that is not found is a UserError). */
export function loadWorkflowOrThrow(wanted: string, options: WorkflowLoadOptions): WorkflowPlan {
  const result = loadWorkflow(wanted, options);
  if (!result.plan) throw new ConfigError(result.issues);
  return result.plan;
}

/** Every plan in a workflow's tree (itself and its sub-workflows, each once), by name. */
export function plansByName(plan: WorkflowPlan, into = new Map<string, WorkflowPlan>()): Map<string, WorkflowPlan> {
  if (!into.has(plan.name)) into.set(plan.name, plan);
  for (const child of Object.values(plan.subWorkflows)) plansByName(child, into);
  return into;
}
