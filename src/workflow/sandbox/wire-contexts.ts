import type { Scope } from '../../engine/evaluation.js';

/**
 * A context as the guest receives it: its messages as JSON, parsed inside only when code reads them, and the
 * length of their text, so that adding a message can tell without them whether max_length trims any.
 */
export interface WireContext {
  json: string;
  chars: number;
}

type Message = Readonly<{ role: string; content: string }>;

// The engine replaces a context's message list when it changes and never changes one in place: each list is
// serialised once, however many evaluations read it.
const wired = new WeakMap<readonly Message[], WireContext>();

/** A context's messages on the wire ({ role, content } each), made once per message list. */
export function wireContext(messages: readonly Message[]): WireContext {
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

/** The scope as it is sent to the guest: the same, with each context as a WireContext. */
export function wireScope(scope: Partial<Scope>): Record<string, unknown> {
  const contexts = scope.contexts;
  if (!contexts) return scope;
  const out: Record<string, WireContext> = {};
  for (const [name, messages] of Object.entries(contexts)) out[name] = wireContext(messages);
  return { ...scope, contexts: out };
}
