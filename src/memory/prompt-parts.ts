import { DIRECTIVE_TOOL_NAME } from '../directive/schema.js';
import type { MachineDefinition, AgentState } from '../engine/definition.js';
import type { Inbox } from '../engine/inbox.js';

/** The roster block as lines: its heading, then every persona with its description, marking whom this persona may hand to. */
export function rosterLines(def: MachineDefinition, self: AgentState): string[] {
  const lines = def.agents.map((a) => {
    const you = a.id === self.id ? ' (you)' : '';
    const allowed = a.id !== self.id && (!self.allowed || self.allowed.has(a.id)) ? '' : a.id === self.id ? '' : ' [not a handoff target for you]';
    return `- ${a.name} (id: ${a.id}, ${a.major})${you}${allowed}: ${a.description}`;
  });
  return [`## Team roster (${def.name})`, ...lines];
}

/** The roster block: every persona with its description, marking whom this persona may hand to. */
export function rosterText(def: MachineDefinition, self: AgentState): string {
  return rosterLines(def, self).join('\n');
}

/** The directive protocol appended to every persona prompt. */
export function protocolText(): string {
  return [
    '## Directive protocol',
    `Write your message for the team, then call the \`${DIRECTIVE_TOOL_NAME}\` tool exactly once to say what happens next:`,
    '- APPROVE_AND_HANDOFF: you approve the work you received; give next_agent.',
    '- REQUEST_REWORK: send the work back to whoever handed it to you; give a specific rework_reason.',
    '- HANDOFF_TO_AGENT: hand over without a verdict; give next_agent.',
    '- RESPOND_TO_USER: you need the user (a question only they can answer).',
    '- COMPLETE: the brief is worked through.',
    'Optionally rate your proposal with urgency, dependency and user_intent (0..1), add alternatives (other personas with their own ratings and a reason), and list key_decisions that must never be forgotten.',
    'If you cannot call tools, end your reply with the directive as a JSON object, e.g. {"transition": "HANDOFF_TO_AGENT", "next_agent": "ceo"}.',
  ].join('\n');
}

/** The message that tells the persona why it has the turn. */
export function inboxText(inbox: Inbox, nameOf: (id: string) => string): string {
  switch (inbox.kind) {
    case 'brief':
      return `The user's brief:\n${inbox.text}`;
    case 'handoff':
      return `${nameOf(inbox.from)} ${inbox.approved ? 'approved the work and handed it' : 'handed the work'} to you. Their message:\n${inbox.text}`;
    case 'rework':
      return inbox.byUser
        ? `The user sent your work back for rework. Reason: ${inbox.reason}\nRevise your work to address it.`
        : `${nameOf(inbox.from)} requested rework of your work. Reason: ${inbox.reason}\nRevise your work to address it.`;
    case 'detour':
      return `You are consulted on a detour (${inbox.reason}); control returns to ${nameOf(inbox.from)} after you. Their message:\n${inbox.text}`;
    case 'detour_return':
      return `${nameOf(inbox.from)} answered on the detour. Their message:\n${inbox.text}\nContinue your work with this in mind.`;
    case 'user_requested':
      return `User-requested transition: the user handed control to you directly, with the full conversation so far. ${inbox.text}`;
    case 'interjection':
      return `The user interjects: ${inbox.text}`;
    case 'consult':
      return `The user consults you (control returns afterwards): ${inbox.text}`;
    case 'consult_answer':
      return `${nameOf(inbox.from)} was consulted. Their answer:\n${inbox.text}\nContinue your work.`;
    case 'user_reply':
      return `The user replies: ${inbox.text}`;
    case 'continue':
    case 'workflow':
    case 'workflow_answer':
      return inbox.text;
  }
}
