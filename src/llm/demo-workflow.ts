import type { ChatRequest, ChatResponse } from './chat-model.js';
import type { ToolSpec } from '../directive/tool.js';

// Property names that mean "more work is needed" (true at first, then false) and "it is accepted" (the reverse).
const NEEDS_WORK = /(needed|required|rework|improve|reject|change|issue|problem|fail|block|revis)/i;
const ACCEPTED = /(approv|accept|agree|ok|pass|complete|done|consensus|ready|green|fund)/i;

/** How many turns this agent already took in its workflow (the engine says so in the call's meta). */
export function priorTurns(request: ChatRequest): number {
  return request.meta.workflow?.round ?? 0;
}

function valueFor(name: string, schema: Record<string, unknown>, round: number, state: string): unknown {
  const type = schema.type;
  const firstRound = round === 0;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const options = schema.enum as unknown[];
    const yes = options.find((o) => typeof o === 'string' && ACCEPTED.test(o));
    const no = options.find((o) => typeof o === 'string' && NEEDS_WORK.test(o));
    return firstRound ? (no ?? options[0]) : (yes ?? options[options.length - 1]);
  }
  if (type === 'boolean') {
    if (NEEDS_WORK.test(name)) return firstRound;
    if (ACCEPTED.test(name)) return !firstRound;
    return !firstRound;
  }
  if (type === 'number' || type === 'integer') return firstRound ? 0.4 : 0.9;
  if (type === 'array') return firstRound ? ['tighten the scope before going on'] : [];
  if (type === 'object') return {};
  const words = name.replace(/_/g, ' ');
  return firstRound ? `(demo) ${words}: one change is needed before ${state} can pass — tighten the scope.` : `(demo) ${words}: the work now holds; ${state} passes.`;
}

/** Arguments for a parsing tool from its JSON schema: the first time a state's agent answers, it asks for a change; after that, it accepts. */
export function demoArguments(tool: ToolSpec, round: number, state: string): Record<string, unknown> {
  const properties = (tool.parameters.properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, valueFor(name, schema, round, state)]));
}

const ASK = 'request_users_input';

/** Offered request_users_input and not yet answered in this conversation: the demo asks the user one question. */
export function demoQuestion(request: ChatRequest, who: string, state: string): Omit<ChatResponse, 'usage'> | null {
  if (!(request.tools ?? []).some((t) => t.name === ASK)) return null;
  if (request.messages.some((m) => m.role === 'tool' && m.name === ASK)) return null;
  const question = `(demo) Before I go on with ${state}: who is it for, and what matters most to you?`;
  return {
    text: `${who} (${state}, demo): I need one answer from you first.`,
    toolCalls: [{ id: 'demo-ask', name: ASK, arguments: JSON.stringify({ question }) }],
    finishReason: 'tool_calls',
    model: 'demo',
  };
}

/** The demo's words in a workflow: in character, about the state's input, saying which round it is. */
export function demoWorkflowText(request: ChatRequest, round: number): string {
  const who = request.meta.personaName ?? request.meta.persona ?? 'The agent';
  const state = request.meta.workflow?.state ?? 'this step';
  const last = request.messages.at(-1);
  if (last?.role === 'tool' && last.name === ASK) return `${who} (${state}, demo): you said "${last.content.slice(0, 80)}" — so here is the brief, built around that.`;
  const input =
    [...request.messages]
      .reverse()
      .find((m) => m.role === 'user')
      ?.content.replace(/\s+/g, ' ')
      .trim() ?? '';
  const about = input.length > 120 ? `${input.slice(0, 117)}…` : input;
  return round === 0
    ? `${who} (${state}, demo): first pass on "${about}". Here is a draft, with one part I am not sure of yet.`
    : `${who} (${state}, demo): round ${round + 1} on "${about}". The open point is settled; this version holds together.`;
}
