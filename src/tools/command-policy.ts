import { ToolError } from './tool.js';

/** Asks someone whether a command may run in a directory; resolves true to run it. */
export type Approver = (command: string, cwd: string) => Promise<boolean>;

/**
 * Which commands run_command may run: none (`deny`), programs named in an allow-list (`allow`,
 * matched by name), or each one as `approve` decides (`ask`; without an approver, as in a headless
 * run, every command is refused). This is a first filter; every command that passes runs in a jail
 * (jail.ts), which `network` lets reach the host's network (default: no network).
 */
export type CommandPolicy = { mode: 'deny' } | { mode: 'allow'; allow: readonly string[]; network?: boolean } | { mode: 'ask'; approve?: Approver; network?: boolean };

/**
 * The policy for a role's `command_policy` as workflow files write it ("deny", "ask", or `{ allow: [...] }`,
 * see CommandPolicySchema in src/workflow/config/roles-schema.ts), with the runtime's approver for "ask".
 */
export function commandPolicyOf(config: 'deny' | 'ask' | { allow: readonly string[]; network?: boolean } | undefined, approve?: Approver): CommandPolicy {
  if (config === undefined || config === 'deny') return { mode: 'deny' };
  if (config === 'ask') return approve ? { mode: 'ask', approve } : { mode: 'ask' };
  return { mode: 'allow', allow: [...config.allow], ...(config.network ? { network: true } : {}) };
}

/** A policy described in a few words, for tool descriptions and refusals. */
export function describePolicy(policy: CommandPolicy): string {
  if (policy.mode === 'deny') return 'no commands may run here';
  if (policy.mode === 'allow') return policy.allow.length ? `only these programs may run: ${policy.allow.join(', ')}` : 'no programs are allowed here';
  return policy.approve ? 'each command is shown to the user, who decides' : "commands need the user's approval, and nobody can give it in this run";
}

/** Whether commands under this policy may use the network. */
export function networkAllowed(policy: CommandPolicy): boolean {
  return policy.mode !== 'deny' && policy.network === true;
}

/** Refuses a program the policy rules out before anything else is looked at (`name` as the model wrote it). */
export function checkProgramName(policy: CommandPolicy, name: string): void {
  if (policy.mode === 'deny') throw new ToolError('commands are not allowed in this workspace (command policy: deny)');
  if (policy.mode === 'ask' && !policy.approve) throw new ToolError("commands need the user's approval (command policy: ask) and nobody can approve them in this run; refused");
  if (policy.mode === 'allow') {
    const base = name.split('/').pop() ?? name;
    if (!policy.allow.includes(base)) throw new ToolError(`"${name}" is not an allowed program (${describePolicy(policy)})`);
  }
}
