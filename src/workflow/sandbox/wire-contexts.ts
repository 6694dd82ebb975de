import type { Scope } from '../../engine/evaluation.js';

/**
 * A context as the guest's scope holds it: the length of its messages' text only (so adding a message can tell
 * whether max_length trims any). The messages themselves go apart, as JSON, and into the guest only when code
 * reads them (see runPart): most handlers only add to a conversation, and copying it into QuickJS for every
 * job cost more than the code.
 */
export interface WireContext {
  chars: number;
}

type Message = Readonly<{ role: string; content: string }>;

// The engine replaces a context's message list when it changes and never changes one in place: each list is
// serialised once, however many evaluations read it. A list that only grew from the last one serialised with
// the same first message (the same message objects, then more) extends that one's JSON: a job after an append
// costs what was appended, not the conversation.
type Wired = { json: string; chars: number };
const wired = new WeakMap<readonly Message[], Wired>();
const lastByFirst = new WeakMap<Message, { list: readonly Message[]; wire: Wired }>();

function plainJson(messages: readonly Message[], from: number): { json: string; chars: number } {
  let chars = 0;
  const plain: Message[] = [];
  for (let i = from; i < messages.length; i++) {
    const m = messages[i]!;
    chars += typeof m.content === 'string' ? m.content.length : 0;
    plain.push({ role: m.role, content: m.content });
  }
  return { json: JSON.stringify(plain), chars };
}

// The last list serialised with this one's first message, when this one starts with all of its messages.
function grownFrom(messages: readonly Message[]): { list: readonly Message[]; wire: Wired } | undefined {
  const last = messages.length > 0 ? lastByFirst.get(messages[0]!) : undefined;
  if (!last || last.list.length > messages.length) return undefined;
  for (let i = 0; i < last.list.length; i++) if (last.list[i] !== messages[i]) return undefined;
  return last;
}

/** A context's messages ({ role, content } each) as JSON, made once per message list, and the length of their text. */
export function wireContext(messages: readonly Message[]): Wired {
  let wire = wired.get(messages);
  if (!wire) {
    const from = grownFrom(messages);
    if (from && from.list.length > 0 && from.list.length < messages.length) {
      const added = plainJson(messages, from.list.length);
      wire = { json: `${from.wire.json.slice(0, -1)},${added.json.slice(1)}`, chars: from.wire.chars + added.chars };
    } else wire = from && from.list.length === messages.length ? from.wire : plainJson(messages, 0);
    wired.set(messages, wire);
    if (messages.length > 0) lastByFirst.set(messages[0]!, { list: messages, wire });
  }
  return wire;
}

/** The scope as it is sent to the guest (each context as a WireContext), and the contexts' messages as one JSON object by name (null: no contexts). */
export function wireScope(scope: Partial<Scope>): { scope: Record<string, unknown>; messages: string | null } {
  const contexts = scope.contexts;
  if (!contexts) return { scope, messages: null };
  const sizes: Record<string, WireContext> = {};
  const parts: string[] = [];
  for (const [name, messages] of Object.entries(contexts)) {
    const wire = wireContext(messages);
    sizes[name] = { chars: wire.chars };
    parts.push(`${JSON.stringify(name)}:${wire.json}`);
  }
  return { scope: { ...scope, contexts: sizes }, messages: `{${parts.join(',')}}` };
}
