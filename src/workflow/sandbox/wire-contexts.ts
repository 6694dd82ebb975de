import type { Scope } from '../../engine/evaluation.js';

/**
 * A context as the guest's scope holds it: the length of its messages' text only (so adding a message can tell
 * whether max_length trims any). The messages themselves go apart (see WireList), and into the guest only when
 * code reads them (see runPart): most handlers only add to a conversation.
 */
export interface WireContext {
  chars: number;
}

/**
 * A context's message list as it travels: its JSON ({ role, content } each) and, for each message, where its
 * JSON ends (the index just past its closing brace). The thread that runs the job compares it with the list the
 * guest holds and sends only the difference (see messagesDelta).
 */
export interface WireList {
  json: string;
  ends: readonly number[];
}

type Message = Readonly<{ role: string; content: string }>;

// The engine replaces a context's message list when it changes and never changes one in place: each list is
// serialised once, however many evaluations read it. A list that only grew from the last one serialised with
// the same first message (the same message objects, then more) extends that one's JSON: a job after an append
// costs what was appended, not the conversation.
type Wired = { json: string; chars: number };
const wired = new WeakMap<readonly Message[], Wired>();
const endsOf = new WeakMap<Wired, readonly number[]>();
const lastByFirst = new WeakMap<Message, { list: readonly Message[]; wire: Wired }>();

// Where the JSON string starting at `at` (its opening quote) ends: the index past its closing quote.
function pastString(json: string, at: number): number {
  for (let i = at + 1; ; ) {
    const quote = json.indexOf('"', i);
    let slashes = 0;
    while (json.charCodeAt(quote - 1 - slashes) === 92) slashes += 1;
    if (slashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

function plainJson(messages: readonly Message[], from: number): { json: string; chars: number; ends: number[] } {
  let chars = 0;
  const plain: Message[] = [];
  for (let i = from; i < messages.length; i++) {
    const m = messages[i]!;
    chars += typeof m.content === 'string' ? m.content.length : 0;
    plain.push({ role: m.role, content: m.content });
  }
  const json = JSON.stringify(plain);
  // Each message is {"role":<string>,"content":<string>}: found by its two strings, without serialising it again.
  const ends: number[] = [];
  let at = 1;
  for (const m of plain) {
    if (typeof m.role === 'string' && typeof m.content === 'string') at = pastString(json, pastString(json, at + 8) + 11) + 1;
    else at += JSON.stringify(m).length;
    ends.push(at);
    at += 1;
  }
  return { json, chars, ends };
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
    let ends: readonly number[];
    if (from && from.list.length > 0 && from.list.length < messages.length) {
      const added = plainJson(messages, from.list.length);
      const shift = from.wire.json.length - 1;
      wire = { json: `${from.wire.json.slice(0, -1)},${added.json.slice(1)}`, chars: from.wire.chars + added.chars };
      ends = endsOf.get(from.wire)!.concat(added.ends.map((e) => e + shift));
    } else if (from && from.list.length === messages.length) {
      wire = from.wire;
      ends = endsOf.get(wire)!;
    } else {
      const whole = plainJson(messages, 0);
      wire = { json: whole.json, chars: whole.chars };
      ends = whole.ends;
    }
    endsOf.set(wire, ends);
    wired.set(messages, wire);
    if (messages.length > 0) lastByFirst.set(messages[0]!, { list: messages, wire });
  }
  return wire;
}

/** A context's messages as a WireList (made once per message list, with its JSON). */
export function wireList(messages: readonly Message[]): WireList {
  const wire = wireContext(messages);
  return { json: wire.json, ends: endsOf.get(wire)! };
}

/** The scope as it is sent to the guest (each context as a WireContext), and each context's messages as a WireList by name (null: no contexts). */
export function wireContexts(scope: Partial<Scope>): { scope: Record<string, unknown>; lists: Record<string, WireList> | null } {
  const contexts = scope.contexts;
  if (!contexts) return { scope, lists: null };
  const sizes: Record<string, WireContext> = {};
  const lists: Record<string, WireList> = {};
  for (const [name, messages] of Object.entries(contexts)) {
    const wire = wireContext(messages);
    sizes[name] = { chars: wire.chars };
    lists[name] = { json: wire.json, ends: endsOf.get(wire)! };
  }
  return { scope: { ...scope, contexts: sizes }, lists };
}

/** wireContexts with the messages as one JSON object by name (null: no contexts): a job whose guest is sent them whole each time. */
export function wireScope(scope: Partial<Scope>): { scope: Record<string, unknown>; messages: string | null } {
  const { scope: sized, lists } = wireContexts(scope);
  if (!lists) return { scope: sized, messages: null };
  const parts: string[] = [];
  for (const [name, list] of Object.entries(lists)) parts.push(`${JSON.stringify(name)}:${list.json}`);
  return { scope: sized, messages: `{${parts.join(',')}}` };
}
