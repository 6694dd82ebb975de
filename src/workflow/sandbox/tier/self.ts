import type { Scope } from '../../../engine/evaluation.js';
import { type Added, agentNamed, agentsMap, contextNamed, contextsMap, type GuestMap, rawResponse, toolCall } from './guest-objects.js';
import { bail, type Env, refuse, stringObject, type TierFunction, TierNative, TierObject } from './values.js';

/** The data one part of a job starts from: the scope, and what the part before left (common_data, a fresh input). */
export interface PartData {
  scope: Scope;
  /** common_data as this part gets it (a copy of its own). */
  commonData: unknown;
  /** The state's input (the free name `input`; this.input without a workflow input): null in a state entered afresh. */
  input: unknown;
  /** What the part adds to contexts (its answer's `appended`), and what the parts before it in the job added (null: none). */
  added: Added;
  base: Added | null;
  /** How scope data becomes the part's own (a copy through JSON; as it is for code that cannot change it). */
  copy: (v: unknown) => unknown;
}

// Names `this` has as data (own, writable), which code may replace (FIXED: not here, since parameters read them lazily); and those built on first use, which it may not here.
const DATA = new Set(['common_data', 'variables', 'input', 'last_agent_response', 'last_tool_calls', 'last_parsing_tool_calls', 'sub_workflow_result', 'last_error', '__troupe_input']);
const FIXED = new Set(['last_tool_calls', 'last_parsing_tool_calls', 'sub_workflow_result', 'last_error', '__troupe_input']);
const LAZY_PARAMETERS: [string, string][] = [
  ['input', '__troupe_input'],
  ['last_tool_calls', 'last_tool_calls'],
  ['last_parsing_tool_calls', 'last_parsing_tool_calls'],
  ['sub_workflow_result', 'sub_workflow_result'],
  ['last_error', 'last_error'],
  ['__troupe_tool', '__troupe_tool'],
];
const LAZY = new Set(['contexts', 'workflow_contexts', 'agents', 'getAgent', 'getToolCalls', 'getContext', 'evaluateExpression', 'context', 'last_response', '__troupe_tool']);

/**
 * `this` of workflow code in one part, as the guest's build() makes it: common_data (and variables, the same),
 * this.input, the last answer and tool calls, the sub-workflow's result, the error, and what is built on first
 * use (contexts, agents, last_response, their methods), each made once per part from copies of the scope.
 * script.js functions are found on it by name after all of those.
 */
export class TierSelf extends TierObject {
  private readonly values = new Map<string, unknown>();
  // Names code set on `this` of its own (made when it sets one).
  private extra: Map<string, unknown> | null = null;
  functions: Record<string, TierFunction> = {};

  /** spend: counts work against the part's step budget (reading a context's messages). */
  constructor(
    private readonly data: PartData,
    private readonly spend: (units: number) => void,
  ) {
    super();
    this.values.set('common_data', data.commonData);
  }

  /**
   * The names a compiled piece gets as its parameters (argsOf in the guest), as bindings in `env`: read now, or
   * on first use for those code cannot replace on `this` (set() refuses them), which read the same either way.
   */
  bindParameters(env: Env): void {
    const cd = this.get('common_data');
    const vars = env.vars;
    vars.set('common_data', { value: cd, mutable: true, ready: true });
    vars.set('variables', { value: cd, mutable: true, ready: true });
    vars.set('last_agent_response', { value: this.get('last_agent_response'), mutable: true, ready: true });
    for (const [name, key] of LAZY_PARAMETERS) vars.set(name, { value: undefined, mutable: true, ready: true, lazy: () => this.get(key) });
  }

  get(key: string): unknown {
    if (key === 'variables') key = 'common_data';
    if (this.values.has(key)) return this.values.get(key);
    if (DATA.has(key) || LAZY.has(key)) {
      const v = this.build(key);
      this.values.set(key, v);
      return v;
    }
    if (this.extra?.has(key)) return this.extra.get(key);
    if (key in Object.prototype) return refuse(`this.${key}`);
    if (Object.hasOwn(this.functions, key)) return this.functions[key];
    return undefined;
  }

  override set(key: string, value: unknown): void {
    if (key === 'variables') key = 'common_data';
    if (FIXED.has(key)) refuse(`setting this.${key}`);
    if (DATA.has(key)) this.values.set(key, value);
    else if (LAZY.has(key) || Object.hasOwn(this.functions, key) || key in Object.prototype) refuse(`setting this.${key}`);
    else {
      this.extra ??= new Map();
      this.extra.set(key, value);
    }
  }

  private toolCalls: Record<string, unknown>[] | null = null;
  private calls(): Record<string, unknown>[] {
    this.toolCalls ??= (this.data.scope.last_tool_calls ?? []).map(toolCall);
    return this.toolCalls;
  }

  /** The contexts Map (built on first use). */
  contexts(): GuestMap {
    return this.get('contexts') as GuestMap;
  }

  private build(key: string): unknown {
    const { scope } = this.data;
    switch (key) {
      case 'input': {
        const wi = scope.workflow_input;
        if (!wi) return this.data.input;
        const props: Record<string, unknown> = {};
        if (wi.name !== 'length' && !/^[0-9]+$/.test(wi.name)) {
          if (wi.name === '__proto__') bail('a workflow input named __proto__');
          props[wi.name] = this.data.copy(wi.value);
        }
        return stringObject(wi.text, props);
      }
      case '__troupe_input':
        return this.data.input;
      case 'last_agent_response':
        return scope.last_agent_response;
      case 'last_tool_calls':
      case 'last_parsing_tool_calls':
        // One list under both names (and the shorthand's), made once.
        return this.calls();
      case 'sub_workflow_result':
        return this.data.copy(scope.sub_workflow_result);
      case 'last_error':
        return scope.last_error === undefined ? undefined : this.data.copy(scope.last_error);
      case '__troupe_tool':
        return new TierNative('__troupe_tool', (_r, args) => {
          const calls = this.calls();
          for (let i = calls.length - 1; i >= 0; i--) if (calls[i]!.name === args[0]) return calls[i];
          return undefined;
        });
      case 'contexts':
        return contextsMap({ messages: scope.contexts ?? {}, limits: scope.context_limits ?? {}, added: this.data.added, base: this.data.base, spend: this.spend });
      case 'workflow_contexts':
        return this.get('contexts');
      case 'getContext':
        return new TierNative('getContext', (_r, args) => contextNamed(this.contexts(), args[0]));
      case 'context':
        return { getContext: this.get('getContext') };
      case 'agents':
        return agentsMap(scope.agents ?? {}, scope.roster ?? {}, () => this.contexts());
      case 'getAgent':
        return new TierNative('getAgent', (_r, args) => agentNamed(this.get('agents') as GuestMap, args[0]));
      case 'getToolCalls':
        return new TierNative('getToolCalls', (_r, args) => (agentNamed(this.get('agents') as GuestMap, args[0]) as TierObject).get('toolCalls'));
      case 'last_response':
        return rawResponse(scope.last_response, scope.last_agent_response);
      default:
        return bail(`this.${key}`);
    }
  }
}
