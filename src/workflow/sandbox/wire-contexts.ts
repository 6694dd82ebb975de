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
// serialised once, however many evaluations read it.
const wired = new WeakMap<readonly Message[], { json: string; chars: number }>();

/** A context's messages ({ role, content } each) as JSON, made once per message list, and the length of their text. */
export function wireContext(messages: readonly Message[]): { json: string; chars: number } {
  let wire = wired.get(messages);
  if (!wire) {
    let chars = 0;
    const plain = messages.map((m) => {
      chars += typeof m.content === 'string' ? m.content.length : 0;
      return { role: m.role, content: m.content };
    });
    wire = { json: JSON.stringify(plain), chars };
    wired.set(messages, wire);
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
