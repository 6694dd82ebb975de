import type { ChatMessage, ChatRequest } from './chat-model.js';

/** The instruction that replaces tools for a server without tool calling: the directive goes in a JSON object. */
export function jsonModeInstruction(request: ChatRequest): string {
  const tools = (request.tools ?? []).map((t) => `"${t.name}" (${t.description}) with parameters ${JSON.stringify(t.parameters)}`);
  return [
    'Tool calling is not available here. Reply with ONE JSON object and nothing else.',
    'Start it with "transition", give the other fields of the directive beside it, and put your whole message for the team in "content".',
    tools.length ? `The object holds the arguments of ${tools.join('; ')}.` : '',
  ].filter(Boolean).join(' ');
}

/** Adds an instruction to the first system message (some chat templates reject a second system message). */
export function withSystemNote(messages: ChatMessage[], note: string): ChatMessage[] {
  const at = messages.findIndex((m) => m.role === 'system');
  if (at < 0) return [{ role: 'system', content: note }, ...messages];
  return messages.map((m, i) => (i === at ? { ...m, content: `${m.content}\n\n${note}` } : m));
}

/**
 * The request rewritten for a server without tools: no tools, the JSON instruction, and
 * `response_format: json_object` unless the server rejected that too.
 */
export function toJsonRequest(request: ChatRequest, responseFormat: boolean): ChatRequest {
  const { tools: _tools, toolChoice: _choice, ...rest } = request;
  return { ...rest, jsonMode: responseFormat, messages: withSystemNote(request.messages, jsonModeInstruction(request)) };
}
