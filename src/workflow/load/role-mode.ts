/** Seed 003's mode syntax: `role:<id>` chats with one role; `workflow:<name>` is the workflow itself. */
export function parseMode(wanted: string): { role: string } | { workflow: string } {
  const role = /^role:(.+)$/.exec(wanted);
  if (role) return { role: role[1]!.trim() };
  const workflow = /^workflow:(.+)$/.exec(wanted);
  return { workflow: workflow ? workflow[1]!.trim() : wanted };
}

/**
 * The workflow a role chat runs: the role as the assistant of one conversation; the first message is the
 * input, each later one goes to `resume` (seed 003's unsolicited input), and after each answer the run
 * waits for the user (`chat`) instead of ending.
 */
export function roleChatConfig(role: string): Record<string, unknown> {
  const name = `role_${role.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const answer = (state: string, input: string) => ({ name: state, agent: role, input, transition: [{ target: 'stop', condition: 'true' }] });
  return {
    workflow_name: name,
    description: `A conversation with the ${role} role (seed 003's role mode)`,
    input: { name: 'message', type: 'string', description: 'Your first message' },
    output: { name: 'reply', type: 'string' },
    contexts: [{ name: 'chat', starting_messages: [], max_length: 50_000 }],
    agents: [{ agent_role: role, context: 'chat', role: 'assistant' }],
    states: [answer('start', 'common_data.message'), answer('resume', 'common_data.resume_input')],
  };
}
