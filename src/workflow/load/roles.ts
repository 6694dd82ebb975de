import { dirname } from 'node:path';
import type { LoadedTeam } from '../../config/load-team.js';
import type { ConfigIssue } from '../../config/issues.js';
import { zodIssues } from '../../config/issues.js';
import { readConfigText, UnreadableFile } from '../../config/safe-read.js';
import { parseConfigJson } from '../../config/config-json.js';
import { RolesFileSchema, type Role } from '../config/roles-schema.js';
import type { AgentPlan } from '../run/plan.js';
import { ASK_USER_TOOL } from '../run/constants.js';

/** The agent tools a role may be given (besides request_users_input). */
export const AGENT_TOOLS = ['read_file', 'write_file', 'edit_file', 'list_files', 'search_files', 'run_command'] as const;

/** A role from a roles.json, with the file it came from. */
export interface FoundRole {
  role: Role;
  file: string;
}

/** Reads roles.json files, first wins per role id; problems go to `issues` (a missing file is not one). */
export function readRoles(files: readonly { path: string; shown: string }[], issues: ConfigIssue[]): Map<string, FoundRole> {
  const roles = new Map<string, FoundRole>();
  for (const { path, shown } of files) {
    let text: string;
    try {
      text = readConfigText(dirname(path), path);
    } catch (error) {
      if (error instanceof UnreadableFile && /does not exist/.test(error.problem)) continue;
      if (error instanceof UnreadableFile) issues.push({ file: shown, field: '', problem: error.problem, fix: error.fix });
      else throw error;
      continue;
    }
    const raw = parseConfigJson(text, shown, issues);
    if (!raw) continue;
    const parsed = RolesFileSchema.safeParse(raw.value);
    if (!parsed.success) {
      issues.push(...zodIssues(shown, parsed.error));
      continue;
    }
    for (const [id, role] of Object.entries(parsed.data)) if (!roles.has(id)) roles.set(id, { role, file: shown });
  }
  return roles;
}

/** An agent of a workflow: what the config says of it, and where it is written. */
export interface AgentRef {
  agent_role: string;
  context: string;
  role: 'user' | 'assistant';
  model?: string;
  file: string;
  field: string;
}

/**
 * Resolves an agent's role: a roles.json role (which may play a team persona), else a team persona of
 * that id. Returns null (and an issue) when neither exists.
 */
export function resolveAgent(ref: AgentRef, roles: ReadonlyMap<string, FoundRole>, team: LoadedTeam | null, issues: ConfigIssue[]): AgentPlan | null {
  const found = roles.get(ref.agent_role);
  const personaId = found ? found.role.persona : ref.agent_role;
  const persona = personaId ? team?.personas.find((p) => p.id === personaId) : undefined;
  if (!found && !persona) {
    const known = [...roles.keys(), ...(team?.personas.map((p) => p.id) ?? [])];
    issues.push({ file: ref.file, field: `${ref.field}.agent_role`, problem: `unknown role "${ref.agent_role}"`, fix: `define it in roles.json next to the workflow or in workflows/roles.json, or use a persona or role: ${known.join(', ')}` });
    return null;
  }
  if (found?.role.persona && !persona) {
    issues.push({ file: found.file, field: `${ref.agent_role}.persona`, problem: `unknown persona "${found.role.persona}"`, fix: `use one of: ${team?.personas.map((p) => p.id).join(', ') ?? '(no team loaded)'}` });
    return null;
  }
  const role = found?.role;
  const excluded = new Set(role?.excludedTools ?? []);
  const tools = (role?.tools ?? []).filter((t) => !excluded.has(t) && (!role?.includedTools || role.includedTools.includes(t)));
  for (const t of tools) {
    if (t !== ASK_USER_TOOL && !(AGENT_TOOLS as readonly string[]).includes(t)) {
      issues.push({ file: found!.file, field: `${ref.agent_role}.tools`, problem: `unknown tool "${t}"`, fix: `use any of: ${[...AGENT_TOOLS, ASK_USER_TOOL].join(', ')}` });
    }
  }
  const system = [persona ? team!.prompts[persona.id] ?? '' : '', role?.systemMessage ?? '', role?.reminder ?? ''].filter((s) => s.trim() !== '').join('\n\n');
  return {
    id: ref.agent_role,
    context: ref.context,
    role: ref.role,
    name: role?.name ?? persona?.name ?? ref.agent_role,
    systemMessage: system,
    model: ref.model ?? role?.model ?? (role && !persona ? role.level : (persona?.model ?? role?.level ?? 'base')),
    parsingTools: (role?.parsingTools ?? []).map((p) => ({ name: p.function.name, description: p.function.description, parameters: p.function.parameters })),
    requestUserInput: tools.includes(ASK_USER_TOOL),
    tools: tools.filter((t) => t !== ASK_USER_TOOL),
    maxToolSteps: role?.max_tool_steps ?? 20,
    examples: role?.examples ?? [],
    commandPolicy: role?.command_policy ?? 'deny',
  };
}
