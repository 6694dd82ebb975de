import type { ChatMessage } from '../llm/chat-model.js';
import type { MachineDefinition, AgentState } from '../engine/definition.js';
import type { SessionState } from '../engine/session.js';
import type { AgentCall } from '../engine/moves.js';
import type { TranscriptEntry } from './transcript.js';
import { inboxText, protocolText, rosterLines } from './prompt-parts.js';
import { linePieces } from './piece-tokens.js';
import { repairPrompt } from '../directive/parse.js';
import { nameIndex, namesFor } from './names.js';

/** What a prompt builder needs for one persona call. */
export interface PromptInput {
  def: MachineDefinition;
  session: SessionState;
  call: AgentCall;
  persona: AgentState;
  personaPrompt: string;
}

/** What the head of a persona's prompt depends on: everything but the call itself. */
export type PrefixInput = Pick<PromptInput, 'def' | 'session' | 'persona' | 'personaPrompt'>;

/** Builds the messages for a persona call. */
export interface PromptBuilder {
  build(input: PromptInput): ChatMessage[];
  /** The messages a call of this persona would start with now, without the message that gives it the turn (for a cache-warming request). */
  prefixMessages?(input: PrefixInput): ChatMessage[];
}

// The roster walks every persona: built once per definition, persona and prompt text.
const systemPrompts = new WeakMap<MachineDefinition, Map<string, { personaPrompt: string; pieces: string[]; text: string }>>();

/**
 * The stable prefix (persona prompt, roster, protocol) as pieces cut after newlines, so token counts
 * of shared pieces (roster lines, protocol) can be cached; built once per definition and persona.
 */
export function systemPromptPieces(input: Pick<PromptInput, 'def' | 'persona' | 'personaPrompt'>): readonly string[] {
  return systemEntry(input).pieces;
}

/** The stable prefix: persona prompt, roster, protocol (built once per definition and persona). */
export function systemPrompt(input: Pick<PromptInput, 'def' | 'persona' | 'personaPrompt'>): string {
  return systemEntry(input).text;
}

function systemEntry(input: Pick<PromptInput, 'def' | 'persona' | 'personaPrompt'>): { pieces: string[]; text: string } {
  let forDef = systemPrompts.get(input.def);
  if (!forDef) {
    forDef = new Map();
    systemPrompts.set(input.def, forDef);
  }
  const cached = forDef.get(input.persona.id);
  if (cached && cached.personaPrompt === input.personaPrompt) return cached;
  const pieces = [`${input.personaPrompt.trim()}\n\n`, ...linePieces(rosterLines(input.def, input.persona), '\n\n'), protocolText()];
  const entry = { personaPrompt: input.personaPrompt, pieces, text: pieces.join('') };
  forDef.set(input.persona.id, entry);
  return entry;
}

/** The closing messages of a call: the inbox, and the repair round when there is one. */
export function closingMessages(input: PromptInput): ChatMessage[] {
  const nameOf = namesFor(input.def, 'The user');
  const out: ChatMessage[] = [{ role: 'user', content: inboxText(input.call.inbox, nameOf) }];
  if (input.call.repair) {
    if (input.call.priorText) out.push({ role: 'assistant', content: input.call.priorText });
    out.push({ role: 'user', content: repairPrompt(input.call.repair) });
  }
  return out;
}

/** Renders one transcript entry from the point of view of `self`. */
export function transcriptMessage(entry: TranscriptEntry, self: string, def: MachineDefinition): ChatMessage | null {
  if (entry.kind === 'note' || entry.status === 'aborted' || entry.text === '') return null;
  if (entry.kind === 'user') return { role: 'user', content: `[User]: ${entry.text}` };
  if (entry.persona === self) return { role: 'assistant', content: entry.text };
  const name = (entry.persona === undefined ? undefined : nameIndex(def).get(entry.persona)) ?? entry.persona;
  return { role: 'user', content: `[${name}]: ${entry.text}` };
}

/** Memory off: the whole transcript (kept by the session as its events arrive) goes into every prompt. */
export class FullHistoryPromptBuilder implements PromptBuilder {
  constructor(private readonly transcript: { readonly entries: readonly TranscriptEntry[] }) {}

  build(input: PromptInput): ChatMessage[] {
    const inbox = input.call.inbox;
    const entries = this.transcript.entries;
    const last = entries[entries.length - 1];
    // The inbox quotes the latest message; do not send it twice.
    const quoted = last && 'text' in inbox && last.text === inbox.text ? entries.slice(0, -1) : entries;
    return [...this.head(input, quoted), ...closingMessages(input)];
  }

  /** The system prompt and the whole transcript, without the inbox: the head every later call of this persona starts with. */
  prefixMessages(input: PrefixInput): ChatMessage[] {
    return this.head(input, this.transcript.entries);
  }

  private head(input: PrefixInput, entries: readonly TranscriptEntry[]): ChatMessage[] {
    const history = entries.map((e) => transcriptMessage(e, input.persona.id, input.def)).filter((m): m is ChatMessage => m !== null);
    return [{ role: 'system', content: systemPrompt(input) }, ...history];
  }
}
