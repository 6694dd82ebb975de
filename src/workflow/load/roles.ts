import type { LoadedTeam } from '../../config/load-team.js';
import type { ConfigIssue } from '../../config/issues.js';
import { zodIssues } from '../../config/issues.js';
import { isCompleteRole, PartialRoleSchema, RoleSchema } from '../config/roles-schema.js';
import type { AgentPlan } from '../run/plan.js';
import { ASK_USER_TOOL } from '../run/constants.js';
import { readRawRolesFile, readRolesTree, type RawRole } from './roles-tree.js';
import { toolAllowed } from './tool-patterns.js';
import { basename, dirname } from 'node:path';
import { assertDirInside, UnreadableFile } from '../../config/safe-read.js';
import { PARSE_ONCE } from '../../config/parse-once.js';

/** The agent tools a role may be given (besides request_users_input). */
export const AGENT_TOOLS = ['read_file', 'write_file', 'edit_file', 'list_files', 'search_files', 'run_command'] as const;

/** Where roles come from: a roles.json (troupe's format, checked whole) or a SynthDev roles folder (each role checked when used). */
export interface RoleSource {
  kind: 'file' | 'tree';
  path: string;
  shown: string;
  /** A missing file or folder is not a problem (the places troupe looks by default). */
  optional: boolean;
}

/** Every definition of each role id, nearest source first. */
export type RoleDefinitions = Map<string, RawRole[]>;

/** Reads the role sources (nearest first); problems go to `issues`. */
export function readRoles(sources: readonly RoleSource[], issues: ConfigIssue[]): RoleDefinitions {
  const out: RoleDefinitions = new Map();
  const add = (id: string, found: RawRole) => out.set(id, [...(out.get(id) ?? []), found]);
  for (const source of sources) {
    if (source.kind === 'tree') {
      // A folder troupe found by itself (config/roles beside config/workflows) is config: inside its config/, not a link out.
      if (source.optional) {
        try {
          assertDirInside(dirname(source.path), source.path, `${basename(source.path)}/`);
        } catch (error) {
          if (!(error instanceof UnreadableFile)) throw error;
          issues.push({ file: source.shown, field: '', problem: error.problem, fix: error.fix });
          continue;
        }
      }
      for (const [id, found] of readRolesTree(source.path, source.shown, issues)) add(id, found);
      continue;
    }
    const map = readRawRolesFile(dirname(source.path), source.path, source.shown, issues, source.optional);
    if (!map) continue;
    for (const [id, role] of Object.entries(map)) {
      // troupe's roles.json is checked whole, as before: a broken role is reported even when no workflow uses it.
      const checked = PartialRoleSchema.safeParse(role, PARSE_ONCE);
      if (!checked.success) issues.push(...zodIssues(source.shown, checked.error).map((i) => ({ ...i, field: i.field ? `${id}.${i.field}` : id })));
      else add(id, { role, file: source.shown });
    }
  }
  return out;
}

/**
 * A role's definition: the nearest complete one (with a systemMessage or a persona), with the fields of
 * nearer partial ones (seed 000's `reviewer` that only adds parsingTools) laid over it. Null when the id is
 * defined nowhere; an issue when it is defined only partially.
 */
function mergedRole(id: string, definitions: RoleDefinitions, issues: ConfigIssue[], ref: AgentRef): RawRole | null {
  const found = definitions.get(id);
  if (!found || found.length === 0) return null;
  const merged: Record<string, unknown> = {};
  for (const { role } of found) {
    for (const [k, v] of Object.entries(role)) if (!(k in merged)) merged[k] = v;
    if (isCompleteRole(role as { systemMessage?: string; persona?: string })) return { role: merged, file: found[0]!.file };
  }
  issues.push({
    file: found[0]!.file,
    field: `${id}.systemMessage`,
    problem: `role "${id}" has no systemMessage (nor a persona), here or in any other roles file troupe reads for ${ref.file}`,
    fix: 'add a systemMessage, or define the full role in the roles folder or roles.json',
  });
  return null;
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
 * Resolves an agent's role: a role from the role sources (which may play a team persona), else a team
 * persona of that id. Returns null (and an issue) when neither exists or the role is not valid.
 */
export function resolveAgent(ref: AgentRef, definitions: RoleDefinitions, team: LoadedTeam | null, issues: ConfigIssue[]): AgentPlan | null {
  const before = issues.length;
  const raw = mergedRole(ref.agent_role, definitions, issues, ref);
  if (issues.length > before) return null;
  let role = null;
  if (raw) {
    const parsed = RoleSchema.safeParse(raw.role, PARSE_ONCE);
    if (!parsed.success) {
      issues.push(...zodIssues(raw.file, parsed.error).map((i) => ({ ...i, field: i.field ? `${ref.agent_role}.${i.field}` : ref.agent_role })));
      return null;
    }
    role = parsed.data;
  }
  const file = raw?.file ?? ref.file;
  const personaId = role ? role.persona : ref.agent_role;
  const persona = personaId ? team?.personas.find((p) => p.id === personaId) : undefined;
  if (!role && !persona) {
    const known = [...definitions.keys(), ...(team?.personas.map((p) => p.id) ?? [])];
    issues.push({
      file: ref.file,
      field: `${ref.field}.agent_role`,
      problem: `unknown role "${ref.agent_role}"`,
      fix: `define it in roles.json next to the workflow, in workflows/roles.json or in a roles folder (--roles), or use a persona or role: ${known.join(', ')}`,
    });
    return null;
  }
  if (role?.persona && !persona) {
    issues.push({ file, field: `${ref.agent_role}.persona`, problem: `unknown persona "${role.persona}"`, fix: `use one of: ${team?.personas.map((p) => p.id).join(', ') ?? '(no team loaded)'}` });
    return null;
  }
  const functionExample = (role?.examples ?? []).findIndex((e) => e.role === 'function');
  if (functionExample !== -1) {
    issues.push({
      file,
      field: `${ref.agent_role}.examples[${functionExample}]`,
      problem: 'a "function" example (the old OpenAI function-message form) is not sent by troupe',
      fix: 'write the example as an assistant message',
    });
    return null;
  }
  const tools = (role?.tools ?? []).filter((t) => toolAllowed(t, role?.includedTools, role?.excludedTools));
  for (const t of tools) {
    if (t !== ASK_USER_TOOL && !(AGENT_TOOLS as readonly string[]).includes(t)) {
      issues.push({ file, field: `${ref.agent_role}.tools`, problem: `unknown tool "${t}"`, fix: `use any of: ${[...AGENT_TOOLS, ASK_USER_TOOL].join(', ')}` });
    }
  }
  const system = [persona ? (team!.prompts[persona.id] ?? '') : '', role?.systemMessage ?? '', role?.reminder ?? ''].filter((s) => s.trim() !== '').join('\n\n');
  const parsingOnly = (role?.parsingTools ?? []).filter((p) => p.parsingOnly === true);
  return {
    id: ref.agent_role,
    context: ref.context,
    role: ref.role,
    name: role?.name ?? persona?.name ?? ref.agent_role,
    systemMessage: system,
    model: ref.model ?? role?.model ?? (role && !persona ? role.level : (persona?.model ?? role?.level ?? 'base')),
    parsingTools: (role?.parsingTools ?? []).map((p) => ({ name: p.function.name, description: p.function.description, parameters: p.function.parameters })),
    // SynthDev forces a parsing-only tool when it is the role's only one.
    ...(parsingOnly.length === 1 ? { forcedTool: parsingOnly[0]!.function.name } : {}),
    requestUserInput: tools.includes(ASK_USER_TOOL),
    tools: tools.filter((t) => t !== ASK_USER_TOOL),
    maxToolSteps: role?.max_tool_steps ?? 20,
    examples: (role?.examples ?? []).map((e) => ({ role: e.role as 'user' | 'assistant', content: e.content })),
    commandPolicy: role?.command_policy ?? 'deny',
  };
}
