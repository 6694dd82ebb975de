import { z } from 'zod';

/** A parsing tool in SynthDev's shape: offered to the model, its call recorded (not run) for conditions to read. */
export const ParsingToolSchema = z.strictObject({
  type: z.literal('function').default('function'),
  function: z.strictObject({
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'must be a function name (letters, digits, _ and -)'),
    description: z.string().default(''),
    parameters: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {} }),
  }),
  parsingOnly: z.boolean().optional().describe("SynthDev: when it is the role's only parsing-only tool, every request forces it (tool_choice names it)."),
});

/** Which commands an agent's run_command may run: none, an allow-list of programs (optionally with network access in their sandbox), or ask the user. */
export const CommandPolicySchema = z.union([
  z.enum(['deny', 'ask']),
  z.strictObject({
    allow: z.array(z.string().min(1)).min(1),
    network: z.boolean().default(false).describe('Let the allowed programs reach the network from their sandbox (e.g. npm install); default false: no network at all.'),
  }),
]);

/** A role in SynthDev's roles.json format (seed 000), plus troupe's agent tools. */
export const RoleSchema = z.strictObject({
  name: z.string().min(1).optional().describe('Display name (default: the role id).'),
  level: z.enum(['base', 'smart', 'fast']).default('base').describe('Model tier.'),
  model: z.string().min(1).optional().describe('A model id (wins over level).'),
  persona: z
    .string()
    .regex(/^[a-z][a-z0-9_]*$/)
    .optional()
    .describe('A team persona this role plays: its prompt is the system message (systemMessage is appended), its name and model are the defaults.'),
  systemMessage: z.string().min(1).optional(),
  excludedTools: z.array(z.string()).default([]),
  includedTools: z.array(z.string()).optional(),
  parsingTools: z.array(ParsingToolSchema).default([]),
  examples: z
    .array(z.strictObject({ role: z.enum(['user', 'assistant', 'function']), content: z.string(), name: z.string().optional(), arguments: z.string().optional() }))
    .default([])
    .describe('Few-shot messages after the system message (SynthDev\'s "function" examples load, but troupe refuses them for an agent of a workflow).'),
  reminder: z.string().optional().describe('Appended to the system message.'),
  agent_description: z.string().optional().describe("SynthDev's agentic roles (not used by workflows; accepted and ignored)."),
  enabled_agents: z.array(z.string()).optional().describe("SynthDev's agentic roles (not used by workflows; accepted and ignored)."),
  can_create_tasks_for: z.array(z.string()).optional().describe("SynthDev's agentic roles (not used by workflows; accepted and ignored)."),
  tools: z.array(z.string().min(1)).default([]).describe('Agent tools: read_file, write_file, edit_file, list_files, search_files, run_command, request_users_input.'),
  max_tool_steps: z.number().int().min(1).max(200).default(20),
  command_policy: CommandPolicySchema.default('deny'),
});

/** A role as written in a file: complete, or (seed 000's `reviewer` with only parsingTools) a partial one completing a role defined farther away. */
export const PartialRoleSchema = RoleSchema.partial();

/** roles.json: role id → role (a role without a systemMessage or persona adds its fields to the same role defined farther away). */
export const RolesFileSchema = z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]*$/, 'must be a simple role id'), PartialRoleSchema);

/** Whether a role can stand on its own: it has a system message or plays a persona. */
export function isCompleteRole(role: { systemMessage?: string | undefined; persona?: string | undefined }): boolean {
  return role.systemMessage !== undefined || role.persona !== undefined;
}

/** A role, as validated. */
export type Role = z.infer<typeof RoleSchema>;
/** A role's command policy as written in its roles file (tools/command-policy.ts holds the resolved one). */
export type CommandPolicySetting = z.infer<typeof CommandPolicySchema>;
