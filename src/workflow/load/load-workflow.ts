import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
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
import { locateSubWorkflow, locateWorkflow, locationPath, workflowDirs, type WorkflowLocation } from './locate.js';
import { normaliseWorkflow } from './normalise.js';
import { workspaceFromIssue } from './workspace-from.js';
import { parseMode, roleChatConfig } from './role-mode.js';
import { readRoles, resolveAgent, type RoleSource } from './roles.js';
import { PARSE_ONCE } from '../../config/parse-once.js';

/** Where workflows are looked up and what they may use: the working directory, the workflow directories, the team whose personas are roles. */
export interface WorkflowLoadOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Workflow directories (default: the project's workflows/, then the shipped ones). */
  dirs?: readonly string[];
  /** The team whose personas workflows may name as roles. */
  team?: LoadedTeam | null;
  /** A roles folder (SynthDev's config/roles) or roles file to read first (--roles; default: TROUPE_ROLES). */
  roles?: string;
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
// A role chat is made in memory: named as given (`role:<id>`), never as a path (its id may hold `..`).
const shownAs = (loader: Loader, location: WorkflowLocation) => (location.inline ? location.name : show(loader, location.file));

function readConfig(loader: Loader, location: WorkflowLocation): { config: WorkflowConfig; script: string | null } | null {
  const shown = shownAs(loader, location);
  if (location.inline) {
    const parsed = WorkflowConfigSchema.safeParse(location.inline, PARSE_ONCE);
    if (!parsed.success) loader.issues.push(...zodIssues(shown, parsed.error));
    return parsed.success ? { config: parsed.data, script: null } : null;
  }
  let text: string;
  let script: string | null = null;
  try {
    // A workflow folder found in a workflows directory is read inside it: the folder itself must be there, not linked in.
    if (location.home !== null && location.dir !== location.home) assertDirInside(location.home, location.dir, `${location.name}/`);
    const scriptDir = location.scriptDir ?? location.dir;
    if (location.scriptDir) assertDirInside(location.dir, location.scriptDir, `${basename(location.scriptDir)}/`);
    text = readConfigText(dirname(location.file), location.file);
    if (location.script) script = readConfigText(scriptDir, location.script);
  } catch (error) {
    if (!(error instanceof UnreadableFile)) throw error;
    loader.issues.push({ file: shown, field: '', problem: error.problem, fix: error.fix });
    return null;
  }
  const raw = parseConfigJson(text, shown, loader.issues);
  if (!raw) return null;
  const picked = pickEntry(raw.value, location, shown, loader.issues);
  if (!picked) return null;
  const { salvaged, error } = salvage(WorkflowConfigSchema, picked.value);
  if (error) loader.issues.push(...zodIssues(picked.shown, error));
  // A file its schema refused is still cross-checked when its states are readable (unknown keys dropped),
  // so one run names every problem; its plan is never built (the issues above stop that).
  if (!salvaged || salvaged.value.states === undefined) return null;
  return { config: salvaged.value as WorkflowConfig, script };
}

// Seed 000's workflows.json holds a list of workflows: the one located (or the only one) is read.
function pickEntry(value: unknown, location: WorkflowLocation, shown: string, issues: ConfigIssue[]): { value: unknown; shown: string } | null {
  if (!Array.isArray(value)) return { value, shown };
  const at = location.entry ?? (value.length === 1 ? 0 : -1);
  if (at < 0 || at >= value.length) {
    const names = value.map((v) => (v && typeof v === 'object' ? String((v as { workflow_name?: unknown }).workflow_name) : '?'));
    issues.push({ file: shown, field: '', problem: `holds ${value.length} workflows (${names.join(', ')})`, fix: `run one by its workflow_name, or as ${shown}#<workflow_name>` });
    return null;
  }
  return { value: value[at], shown: `${shown}[${at}]` };
}

/** Where an agent's roles are read from, nearest first: --roles / TROUPE_ROLES, roles.json beside the workflow, SynthDev's config/roles next to config/workflows, then roles.json in the workflow directories. */
export function roleSources(location: WorkflowLocation, dirs: readonly string[], options: WorkflowLoadOptions): RoleSource[] {
  const sources: RoleSource[] = [];
  const given = options.roles ?? options.env?.TROUPE_ROLES;
  if (given) {
    const path = resolve(options.cwd, given);
    const tree = existsSync(path) && statSync(path).isDirectory();
    sources.push({ kind: tree ? 'tree' : 'file', path, shown: relative(options.cwd, path) || path, optional: false });
  }
  const files = [location.dir, location.home, ...dirs].filter((d): d is string => d !== null).map((d) => join(d, 'roles.json'));
  const [own, ...rest] = files.filter((f, i, all) => all.indexOf(f) === i);
  const add = (path: string | undefined) => path && sources.push({ kind: 'file', path, shown: relative(options.cwd, path) || path, optional: true });
  add(own);
  // SynthDev keeps roles in config/roles beside config/workflows.
  for (const dir of [location.dir, location.home]) {
    const tree = dir && basename(dir) === 'workflows' && basename(dirname(dir)) === 'config' ? join(dirname(dir), 'roles') : null;
    if (tree && existsSync(tree) && statSync(tree).isDirectory() && !sources.some((s) => s.path === tree))
      sources.push({ kind: 'tree', path: tree, shown: relative(options.cwd, tree) || tree, optional: true });
  }
  for (const path of rest) add(path);
  return sources;
}

function load(loader: Loader, location: WorkflowLocation): WorkflowPlan | null {
  const shown = shownAs(loader, location);
  const read = readConfig(loader, location);
  if (!read) return null;
  const { config, script } = read;
  const before = loader.issues.length;
  loader.stack.push(locationPath(location));
  const subWorkflows: Record<string, WorkflowPlan> = {};
  const found = new Set<string>();
  config.states.forEach((s, i) => {
    const name = s.action?.sub_workflow;
    if (name === undefined || found.has(name)) return;
    const sub = locateSubWorkflow(name, location, loader.dirs);
    if (!sub) return;
    found.add(name);
    if (loader.stack.includes(locationPath(sub))) {
      const cycle = [...loader.stack.slice(loader.stack.indexOf(locationPath(sub))), locationPath(sub)].map((f) => show(loader, f)).join(' -> ');
      loader.issues.push({
        file: shown,
        field: `states[${i}].action.sub_workflow`,
        problem: `sub-workflows form a cycle (${cycle})`,
        fix: 'a workflow may not run itself, directly or through others',
      });
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
  const from = config.workspace?.from;
  const fromIssue = from !== undefined && !location.inline ? workspaceFromIssue(from, { cwd: loader.options.cwd, file: location.file, shown, git: config.workspace?.git ?? false }) : null;
  if (fromIssue) loader.issues.push(fromIssue);
  const roles = readRoles(roleSources(location, loader.dirs, loader.options), loader.issues);
  const agents: AgentPlan[] = [];
  config.agents.forEach((a, i) => {
    const agent = resolveAgent({ ...a, file: shown, field: `agents[${i}]` }, roles, loader.options.team ?? null, loader.issues);
    if (agent) agents.push(agent);
  });
  if (loader.issues.length > before) return null;
  const plan = normaliseWorkflow(config, { agents, subWorkflows, script, source: location.inline ? location.name : location.file, cwd: loader.options.cwd });
  return location.inline ? { ...plan, chat: true } : plan;
}

/** Loads a workflow by name or path with its roles and sub-workflows, collecting every problem. */
export function loadWorkflow(wanted: string, options: WorkflowLoadOptions): WorkflowLoadResult {
  const dirs = options.dirs ?? workflowDirs(options.cwd, options.env);
  const mode = parseMode(wanted);
  // Seed 003's `role:<id>` chats with one role; `workflow:<name>` names a workflow.
  const location: WorkflowLocation =
    'role' in mode
      ? { name: wanted, file: join(options.cwd, wanted), dir: options.cwd, script: null, home: null, inline: roleChatConfig(mode.role) }
      : locateWorkflow(mode.workflow, { cwd: options.cwd, dirs });
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
