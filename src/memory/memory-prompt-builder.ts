import type { ChatMessage } from '../llm/chat-model.js';
import { event, type EngineEvent } from '../engine/event-map.js';
import type { Memory } from './memory.js';
import type { RawTurn, Summary } from './memory-state.js';
import { closingMessages, systemPrompt, type PromptBuilder, type PromptInput } from './prompt-builder.js';
import { pinnedBlock, summaryText, SUMMARIES_HEADER, trimLabel, type NameOf } from './render.js';
import { messageTokens, promptTokens } from './tokens.js';

/** Settings of the memory prompt builder. */
export interface MemoryPromptOptions {
  /** Max prompt tokens per call (team.json `memory.prompt_budget`). */
  budget: number;
  /** Where `memory_trimmed` goes. */
  publish?: (e: EngineEvent) => void;
}

type Item = { kind: 'summary'; s: Summary } | { kind: 'turn'; t: RawTurn };

function namer(input: Pick<PromptInput, 'def'>): NameOf {
  return (id) => (id === 'user' ? 'User' : (input.def.agentIndex.get(id)?.name ?? id));
}

function turnMessage(t: RawTurn, self: string, nameOf: NameOf): ChatMessage {
  if (t.author === self) return { role: 'assistant', content: t.text };
  return { role: 'user', content: `[${nameOf(t.author)}]: ${t.text}` };
}

/**
 * Memory on: system = persona prompt, roster, protocol, brief and pinned decisions (a prefix that
 * stays byte-identical until something new is pinned, so providers can cache it); then the
 * summaries, the recent raw turns and the inbox. Over the budget, the oldest non-pinned material
 * goes first and `memory_trimmed` says what went.
 */
export class MemoryPromptBuilder implements PromptBuilder {
  constructor(
    readonly memory: Memory,
    private readonly options: MemoryPromptOptions,
  ) {}

  /** The stable prefix for a persona: system prompt, brief, pinned decisions. */
  prefix(input: Pick<PromptInput, 'def' | 'persona' | 'personaPrompt' | 'session'>): string {
    const brief = input.session.brief || this.memory.brief;
    const pinned = pinnedBlock(this.memory.pinned, namer(input));
    return [systemPrompt(input), brief ? `## The brief\n${brief}` : '', pinned].filter((p) => p !== '').join('\n\n');
  }

  build(input: PromptInput): ChatMessage[] {
    const nameOf = namer(input);
    const system: ChatMessage = { role: 'system', content: this.prefix(input) };
    const closing = closingMessages(input);
    const inbox = input.call.inbox;
    let raw = [...this.memory.recent];
    const last = raw[raw.length - 1];
    // The inbox quotes the latest message; do not send it twice.
    if (last && 'text' in inbox && last.text === inbox.text) raw = raw.slice(0, -1);
    const items: Item[] = [...this.memory.summaries.map((s): Item => ({ kind: 'summary', s })), ...raw.map((t): Item => ({ kind: 'turn', t }))];
    const assemble = (kept: Item[]): ChatMessage[] => {
      const summaries = kept.flatMap((i) => (i.kind === 'summary' ? [summaryText(i.s)] : []));
      const turns = kept.flatMap((i) => (i.kind === 'turn' ? [turnMessage(i.t, input.persona.id, nameOf)] : []));
      const memo: ChatMessage[] = summaries.length ? [{ role: 'user', content: `${SUMMARIES_HEADER}\n${summaries.join('\n')}` }] : [];
      return [system, ...memo, ...turns, ...closing];
    };
    const full = assemble(items);
    const budget = this.options.budget;
    // Cheap estimate from cached per-item counts first, then exact counts to settle the boundary.
    const fixed = promptTokens([system, ...closing]) + messageTokens({ role: 'user', content: SUMMARIES_HEADER });
    const cost = (i: Item) => (i.kind === 'summary' ? i.s.tokens + 1 : i.t.tokens + 8);
    let total = fixed + items.reduce((n, i) => n + cost(i), 0);
    if (total <= budget && promptTokens(full) <= budget) return full;
    let drop = 0;
    while (drop < items.length && total > budget) total -= cost(items[drop++]!);
    // The estimate only picks a starting point: step back while the exact count allows, forward while it does not.
    while (drop > 0 && promptTokens(assemble(items.slice(drop - 1))) <= budget) drop -= 1;
    let messages = assemble(items.slice(drop));
    while (drop < items.length && promptTokens(messages) > budget) messages = assemble(items.slice(++drop));
    if (drop > 0) {
      this.options.publish?.(event('memory_trimmed', {
        persona: input.persona.id,
        dropped: items.slice(0, drop).map((i) => trimLabel(i, nameOf)),
        tokens_before: promptTokens(full),
        tokens_after: promptTokens(messages),
        budget,
      }));
    }
    return messages;
  }
}
