import type { ChatMessage } from '../llm/chat-model.js';
import type { MachineDefinition, AgentState } from '../engine/definition.js';
import type { AgentCall, SessionState } from '../engine/session.js';
import { inboxText, protocolText, rosterText } from './prompt-parts.js';
import { repairPrompt } from '../directive/parse.js';

/** What a prompt builder needs for one persona call. */
export interface PromptInput {
  def: MachineDefinition;
  session: SessionState;
  call: AgentCall;
  persona: AgentState;
  personaPrompt: string;
}

/** Builds the messages for a persona call. */
export interface PromptBuilder {
  build(input: PromptInput): ChatMessage[];
}

/** The stable prefix: persona prompt, roster, protocol. */
export function systemPrompt(input: Pick<PromptInput, 'def' | 'persona' | 'personaPrompt'>): string {
  return `${input.personaPrompt.trim()}\n\n${rosterText(input.def, input.persona)}\n\n${protocolText()}`;
}

/** The closing messages of a call: the inbox, and the repair round when there is one. */
export function closingMessages(input: PromptInput): ChatMessage[] {
  const nameOf = (id: string) => (id === 'user' ? 'The user' : input.def.agents.find((a) => a.id === id)?.name ?? id);
  const out: ChatMessage[] = [{ role: 'user', content: inboxText(input.call.inbox, nameOf) }];
  if (input.call.repair) {
    if (input.call.priorText) out.push({ role: 'assistant', content: input.call.priorText });
    out.push({ role: 'user', content: repairPrompt(input.call.repair) });
  }
  return out;
}

/** Renders one transcript entry from the point of view of `self`. */
export function transcriptMessage(entry: SessionState['transcript'][number], self: string, def: MachineDefinition): ChatMessage | null {
  if (entry.kind === 'note' || entry.status === 'aborted' || entry.text === '') return null;
  if (entry.kind === 'user') return { role: 'user', content: `[User]: ${entry.text}` };
  if (entry.persona === self) return { role: 'assistant', content: entry.text };
  const name = def.agents.find((a) => a.id === entry.persona)?.name ?? entry.persona;
  return { role: 'user', content: `[${name}]: ${entry.text}` };
}

/** Memory off: the whole transcript goes into every prompt. */
export class FullHistoryPromptBuilder implements PromptBuilder {
  build(input: PromptInput): ChatMessage[] {
    const inbox = input.call.inbox;
    const entries = input.session.transcript;
    const last = entries[entries.length - 1];
    // The inbox quotes the latest message; do not send it twice.
    const quoted = last && 'text' in inbox && last.text === inbox.text ? entries.slice(0, -1) : entries;
    const history = quoted
      .map((e) => transcriptMessage(e, input.persona.id, input.def))
      .filter((m): m is ChatMessage => m !== null);
    return [{ role: 'system', content: systemPrompt(input) }, ...history, ...closingMessages(input)];
  }
}
