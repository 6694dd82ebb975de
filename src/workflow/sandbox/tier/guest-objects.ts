import type { RawResponse } from '../../../engine/evaluation.js';
import { jsonDepth, MAX_JSON_DEPTH } from '../json-depth.js';
import { memberOf } from './members.js';
import { copyData, show } from './data.js';
import { bail, isPlainObject, isStringObject, stringObject, textOf, TierNative, TierObject } from './values.js';

// The guest's context Maps, contexts and agents (GUEST_MODULES' contexts and agents), as far as the tier models
// them: a context's messages are never read here (code that reads them runs in the sandbox), only added to.

const ROLES = new Set(['system', 'user', 'assistant']);
const MAP_NAMES = new Set(Object.getOwnPropertyNames(Map.prototype));

/** What a part added to contexts, by context name in the order first changed (the answer's `appended`). */
export type Added = Map<string, { role: string; content: string }[]>;

/** A Map of the guest (contexts, agents) that also reads its entries by name. */
export class GuestMap extends TierObject {
  constructor(readonly entries: Map<string, unknown>) {
    super();
  }
  get(key: string): unknown {
    if (key === 'get') return MAP_GET;
    if (key === 'has') return MAP_HAS;
    if (key === 'size') return this.entries.size;
    if (MAP_NAMES.has(key) || key in Object.prototype) return bail(`Map member ${key}`);
    return this.entries.has(key) ? this.entries.get(key) : undefined;
  }
}

const mapOf = (receiver: unknown): GuestMap => (receiver instanceof GuestMap ? receiver : bail('a Map method on something else'));
const MAP_GET = new TierNative('get', (receiver, args) => mapOf(receiver).entries.get(args[0] as string));
const MAP_HAS = new TierNative('has', (receiver, args) => mapOf(receiver).entries.has(args[0] as string));

/** A context: its name, its max_length, addMessage (what it adds goes to the part's `added`). */
export class GuestContext extends TierObject {
  private chars = 0;
  constructor(
    readonly name: string,
    readonly limit: number | undefined,
    private readonly added: Added,
  ) {
    super();
  }
  get(key: string): unknown {
    if (key === 'name') return this.name;
    if (key === 'maxLength') return this.limit;
    if (key === 'addMessage') return ADD_MESSAGE;
    if (key === 'getName') return GET_NAME;
    return bail(`context member ${key}`);
  }
  /** The guest's addMessage, for a context whose messages code has not read; the length of the content it added. */
  add(message: unknown, spend?: (units: number) => void): number {
    if (!isPlainObject(message)) bail('addMessage of a value that is not an object');
    const role = memberOf(message, 'role');
    if (typeof role !== 'string' || !ROLES.has(role)) bail('addMessage with a bad role');
    const raw = memberOf(message, 'content');
    const content = typeof raw === 'string' ? raw : isStringObject(raw) ? textOf(raw) : show(raw, spend);
    let list = this.added.get(this.name);
    if (!list) {
      list = [];
      this.added.set(this.name, list);
    }
    list.push({ role, content });
    this.chars += content.length;
    // Past max_length on its own, the guest reads the messages to trim them: that is the sandbox's to do.
    if (this.limit !== undefined && this.limit > 0 && this.chars > this.limit) bail('messages added past max_length');
    return content.length;
  }
}

const contextOf = (receiver: unknown): GuestContext => (receiver instanceof GuestContext ? receiver : bail('a context method on something else'));
// What it adds is kept (and written in the answer): its length counts against the step budget.
const ADD_MESSAGE = new TierNative('addMessage', (receiver, args, running) => {
  running.spend(contextOf(receiver).add(args[0], (units) => running.spend(units)));
});
const GET_NAME = new TierNative('getName', (receiver) => contextOf(receiver).name);

/** The guest's contexts Map for a part: one context per name the scope holds. */
export function contextsMap(contexts: Record<string, unknown>, limits: Record<string, number>, added: Added): GuestMap {
  const entries = new Map<string, unknown>();
  for (const name of Object.keys(contexts)) entries.set(name, new GuestContext(name, Object.hasOwn(limits, name) ? limits[name] : undefined, added));
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
        return bail(`agent member ${key}`);
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
