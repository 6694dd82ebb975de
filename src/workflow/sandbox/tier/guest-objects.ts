import type { RawResponse } from '../../../engine/evaluation.js';
import { jsonDepth, MAX_JSON_DEPTH } from '../json-depth.js';
import { memberOf } from './members.js';
import { copyData, show } from './data.js';
import { bail, ELEMENT_UNITS, isPlainObject, isStringObject, lock, refuse, stringObject, textOf, TierNative, TierObject } from './values.js';

// The guest's context Maps, contexts and agents (GUEST_MODULES' contexts and agents), as far as the tier models
// them: a context's messages are added to, and read as the guest reads them (copies code may not change).

const ROLES = new Set(['system', 'user', 'assistant']);
const MAP_NAMES = new Set(Object.getOwnPropertyNames(Map.prototype));

type Message = { role: string; content: string };
/** What a part added to contexts, by context name in the order first changed (the answer's `appended`). */
export type Added = Map<string, Message[]>;

/** A Map of the guest (contexts, agents) that also reads its entries by name. */
export class GuestMap extends TierObject {
  constructor(readonly entries: Map<string, unknown>) {
    super();
  }
  get(key: string): unknown {
    if (key === 'get') return MAP_GET;
    if (key === 'has') return MAP_HAS;
    if (key === 'size') return this.entries.size;
    if (MAP_NAMES.has(key) || key in Object.prototype) return refuse(`Map member ${key}`);
    return this.entries.has(key) ? this.entries.get(key) : undefined;
  }
}

const mapOf = (receiver: unknown): GuestMap => (receiver instanceof GuestMap ? receiver : bail('a Map method on something else'));
const MAP_GET = new TierNative('get', (receiver, args) => mapOf(receiver).entries.get(args[0] as string));
const MAP_HAS = new TierNative('has', (receiver, args) => mapOf(receiver).entries.has(args[0] as string));

/** Where a part's contexts come from: the engine's messages by context name, and those parts before it in the job added. */
export interface ContextSources {
  /** The scope's messages by context name (the engine's: read, never changed). */
  messages: Record<string, readonly unknown[]>;
  limits: Record<string, number>;
  /** What this part adds (its answer's `appended`). */
  added: Added;
  /** What the parts before it in the job added (the engine appends them before it runs this part). */
  base: Added | null;
  /** Counts work against the part's step budget. */
  spend: (units: number) => void;
}

/**
 * A context: its name, its max_length, addMessage (what it adds goes to the part's `added`), and its messages as
 * the guest's code reads them: the engine's, then those added in the job so far, as copies locked against change
 * (a change would have the guest send the whole list: the sandbox's to answer).
 */
export class GuestContext extends TierObject {
  private chars = 0;
  // The messages as code reads them, made on first read (null: not read), and the length of their text.
  private list: Message[] | null = null;
  private listChars = 0;
  constructor(
    readonly name: string,
    readonly limit: number | undefined,
    private readonly sources: ContextSources,
  ) {
    super();
  }
  get(key: string): unknown {
    switch (key) {
      case 'name':
        return this.name;
      case 'maxLength':
        return this.limit;
      case 'messages':
        return this.messages();
      case 'addMessage':
        return ADD_MESSAGE;
      case 'getName':
        return GET_NAME;
      case 'getMessages':
        return GET_MESSAGES;
      case 'getLastMessage':
        return GET_LAST_MESSAGE;
      case 'getMessagesByRole':
        return GET_MESSAGES_BY_ROLE;
      case 'hasMessages':
        return HAS_MESSAGES;
      default:
        return refuse(`context member ${key}`);
    }
  }
  /** The guest's addMessage; the length of the content it added. */
  add(message: unknown, spend?: (units: number) => void): number {
    if (!isPlainObject(message)) bail('addMessage of a value that is not an object');
    const role = memberOf(message, 'role');
    if (typeof role !== 'string' || !ROLES.has(role)) bail('addMessage with a bad role');
    const raw = memberOf(message, 'content');
    const content = typeof raw === 'string' ? raw : isStringObject(raw) ? textOf(raw) : show(raw, spend);
    const { added } = this.sources;
    let list = added.get(this.name);
    if (!list) {
      list = [];
      added.set(this.name, list);
    }
    list.push({ role, content });
    this.chars += content.length;
    // Past max_length on its own, the guest reads the messages to trim them: that is the sandbox's to do.
    if (this.past(this.chars)) bail('messages added past max_length');
    if (this.list) {
      // Read before: the guest appends it to the list code holds (and trims that past max_length: the sandbox's to do).
      this.list.push(lock({ role, content }));
      this.listChars += content.length;
      if (this.past(this.listChars)) bail('messages read past max_length');
    }
    return content.length;
  }
  /** The messages as code reads them (the guest's replay of what the engine kept and what the job added, untrimmed within max_length). */
  messages(): Message[] {
    if (this.list) return this.list;
    const { messages, base, added, spend } = this.sources;
    const sent = Object.hasOwn(messages, this.name) ? messages[this.name]! : [];
    if (!Array.isArray(sent)) bail('messages that are not a list');
    const list: Message[] = [];
    let chars = 0;
    const take = (m: Message) => {
      list.push(lock({ role: m.role, content: m.content }));
      chars += m.content.length;
    };
    spend(sent.length * ELEMENT_UNITS);
    const read = ++reads;
    for (const m of sent) {
      const copy = messageOf(m, this.name, read);
      list.push(copy);
      chars += copy.content.length;
    }
    for (const m of base?.get(this.name) ?? []) take(m);
    for (const m of added.get(this.name) ?? []) take(m);
    // Past max_length the guest trims them as it reads them: the sandbox's to do.
    if (this.past(chars)) bail('messages read past max_length');
    this.list = lock(list);
    this.listChars = chars;
    return this.list;
  }
  private past(chars: number): boolean {
    return this.limit !== undefined && this.limit > 0 && chars > this.limit;
  }
}

// Copies of the engine's messages, each made once, by the message (the engine never changes one: it replaces lists)
// and the context it was read from. Locked, so no code changes one: an evaluation may get the copy an earlier one
// got (none can keep it: what a part leaves is copied again), and no two places in what code reads share one (the
// guest's copies are all distinct): not two contexts, not a message twice in a list (`read`: the read it was last given to).
const copies = new WeakMap<object, { context: string; copy: Message; read: number }>();
let reads = 0;

// A message of the engine's as plain data, locked: its role and content, own data properties holding strings (no getter runs).
function messageOf(m: unknown, context: string, read: number): Message {
  const known = typeof m === 'object' && m !== null ? copies.get(m) : undefined;
  if (known && known.context === context && known.read !== read) {
    known.read = read;
    return known.copy;
  }
  if (!isPlainObject(m)) return bail('a message that is not plain data');
  const role = Object.getOwnPropertyDescriptor(m, 'role');
  const content = Object.getOwnPropertyDescriptor(m, 'content');
  if (typeof role?.value !== 'string' || typeof content?.value !== 'string') return bail('a message that is not { role, content }');
  const copy = lock({ role: role.value, content: content.value });
  if (!known) copies.set(m, { context, copy, read });
  return copy;
}

const contextOf = (receiver: unknown): GuestContext => (receiver instanceof GuestContext ? receiver : bail('a context method on something else'));
// What it adds is kept (and written in the answer): its length counts against the step budget.
const ADD_MESSAGE = new TierNative('addMessage', (receiver, args, running) => {
  running.spend(contextOf(receiver).add(args[0], (units) => running.spend(units)));
});
const GET_NAME = new TierNative('getName', (receiver) => contextOf(receiver).name);
// As the guest's context methods answer: a new list (of the same messages), the last one, those of a role.
const GET_MESSAGES = new TierNative('getMessages', (receiver, _args, running) => {
  const list = contextOf(receiver).messages();
  running.spend(list.length * ELEMENT_UNITS);
  return list.slice();
});
const GET_LAST_MESSAGE = new TierNative('getLastMessage', (receiver) => {
  const list = contextOf(receiver).messages();
  return list.length > 0 ? list[list.length - 1] : null;
});
const GET_MESSAGES_BY_ROLE = new TierNative('getMessagesByRole', (receiver, args, running) => {
  const list = contextOf(receiver).messages();
  running.spend(list.length * ELEMENT_UNITS);
  return list.filter((m) => m.role === args[0]);
});
const HAS_MESSAGES = new TierNative('hasMessages', (receiver) => contextOf(receiver).messages().length > 0);

/** The guest's contexts Map for a part: one context per name the scope holds. */
export function contextsMap(sources: ContextSources): GuestMap {
  const entries = new Map<string, unknown>();
  for (const name of Object.keys(sources.messages)) {
    // The sandbox's scope loses it (an object's __proto__ key sets its prototype on the way): the sandbox decides.
    if (name === '__proto__') bail('a context named __proto__');
    entries.set(name, new GuestContext(name, Object.hasOwn(sources.limits, name) ? sources.limits[name] : undefined, sources));
  }
  return new GuestMap(entries);
}

/** The guest's getContext: the context by name; a missing one throws in the guest (the tier gives up). */
export function contextNamed(contexts: GuestMap, name: unknown): GuestContext {
  const found = typeof name === 'string' ? contexts.entries.get(name) : undefined;
  return found instanceof GuestContext ? found : bail('getContext of a context that does not exist');
}

/** A tool call as the guest gives it to code: its arguments parsed from their JSON text (kept as text when they are not JSON), under `function` too. */
export function toolCall(c: { name: string; arguments: unknown }): Record<string, unknown> {
  let a: unknown = c.arguments;
  if (typeof a === 'string') {
    if (jsonDepth(a) > MAX_JSON_DEPTH) bail('tool-call arguments nested too deep');
    try {
      a = JSON.parse(a);
    } catch {
      // kept as text
    }
  } else a = copyData(a);
  return { name: c.name, arguments: a, function: { name: c.name, arguments: a } };
}

/** this.last_response: the text, or a String of it carrying the chat-completion fields (SynthDev's raw answer). */
export function rawResponse(raw: RawResponse | null | undefined, text: string | null | undefined): unknown {
  if (!raw) return text === undefined ? null : text;
  const message: Record<string, unknown> = { role: 'assistant', content: raw.content };
  if (raw.tool_calls.length > 0) message.tool_calls = raw.tool_calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  const props: Record<string, unknown> = { id: 'chatcmpl-troupe', object: 'chat.completion', created: 0, model: raw.model, choices: [{ index: 0, message, finish_reason: raw.finish_reason }] };
  if (raw.usage) props.usage = { prompt_tokens: raw.usage.prompt_tokens, completion_tokens: raw.usage.completion_tokens, total_tokens: raw.usage.prompt_tokens + raw.usage.completion_tokens };
  return stringObject(raw.content === null ? '' : raw.content, props);
}

type AgentData = { response: string; toolCalls: { name: string; arguments: unknown }[]; raw?: RawResponse };
type Seat = { context: string; role: 'user' | 'assistant' };

/** An agent as the guest offers it (getAgent(role)): its data, and its methods (each agent's own). */
export class GuestAgent extends TierObject {
  private readonly calls: Record<string, unknown>[];
  private readonly methods = new Map<string, TierNative>();
  private raw: unknown;
  constructor(
    readonly role: string,
    private readonly data: AgentData | null,
    private readonly seat: Seat | null,
    private readonly contexts: (() => GuestMap) | null,
  ) {
    super();
    this.calls = (data?.toolCalls ?? []).map(toolCall);
  }
  get(key: string): unknown {
    switch (key) {
      case 'role':
      case 'agentRole':
        return this.role;
      case 'contextRole':
        return this.seat ? this.seat.role : null;
      case 'response':
        return this.data ? this.data.response : null;
      case 'toolCalls':
        return this.calls;
      case 'getLastResponse':
      case 'getToolCalls':
      case 'getParsingToolCalls':
      case 'hasToolCalls':
      case 'getRole':
      case 'getContextRole':
      case 'getLastRawResponse':
      case 'getContext':
        return this.method(key);
      default:
        return refuse(`agent member ${key}`);
    }
  }
  private method(key: string): TierNative {
    let m = this.methods.get(key);
    if (!m) {
      m = new TierNative(key, () => this.answer(key));
      this.methods.set(key, m);
    }
    return m;
  }
  private answer(key: string): unknown {
    switch (key) {
      case 'getLastResponse':
        return this.data ? this.data.response : null;
      case 'getToolCalls':
      case 'getParsingToolCalls':
        return this.calls;
      case 'hasToolCalls':
        return this.calls.length > 0;
      case 'getRole':
        return this.role;
      case 'getContextRole':
        return this.seat ? this.seat.role : null;
      case 'getLastRawResponse':
        if (this.raw === undefined) this.raw = this.data?.raw ? rawResponse(this.data.raw, this.data.response) : null;
        return this.raw;
      default:
        return this.seat && this.contexts ? contextNamed(this.contexts(), this.seat.context) : null;
    }
  }
}

/** The guest's agents Map: every agent of the roster, then any other that answered. */
export function agentsMap(scoped: Record<string, AgentData>, roster: Record<string, Seat>, contexts: () => GuestMap): GuestMap {
  const roles = Object.keys(roster);
  for (const r of Object.keys(scoped)) if (!roles.includes(r)) roles.push(r);
  const entries = new Map<string, unknown>();
  for (const r of roles) entries.set(r, new GuestAgent(r, Object.hasOwn(scoped, r) ? scoped[r]! : null, Object.hasOwn(roster, r) ? roster[r]! : null, contexts));
  return new GuestMap(entries);
}

/** getAgent(role): the agent, or one with no answer and no tool calls. */
export function agentNamed(agents: GuestMap, role: unknown): unknown {
  if (typeof role !== 'string') return bail('getAgent of a role that is not a string');
  const found = agents.entries.get(role);
  return found !== undefined ? found : new GuestAgent(role, null, null, null);
}
