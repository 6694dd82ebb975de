import type { ChatMessage, ChatRequest } from './chat-model.js';

/** The instruction that replaces tools for a server without tool calling: the directive goes in a JSON object. */
export function jsonModeInstruction(request: ChatRequest): string {
  const tools = (request.tools ?? []).map((t) => `"${t.name}" (${t.description}) with parameters ${JSON.stringify(t.parameters)}`);
  return [
    'Tool calling is not available here. Reply with ONE JSON object and nothing else.',
    'Start it with "transition", give the other fields of the directive beside it, and put your whole message for the team in "content".',
    tools.length ? `The object holds the arguments of ${tools.join('; ')}.` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** Adds an instruction to the first system message (some chat templates reject a second system message). */
export function withSystemNote(messages: ChatMessage[], note: string): ChatMessage[] {
  const at = messages.findIndex((m) => m.role === 'system');
  if (at < 0) return [{ role: 'system', content: note }, ...messages];
  return messages.map((m, i) => (i === at ? { ...m, content: `${m.content}\n\n${note}` } : m));
}

/**
 * Tool traffic as plain text, for a request that offers no tools (a server may reject `tool` messages
 * or assistant `tool_calls` then): each call is told in its assistant message, each result becomes a user message.
 */
export function toolMessagesAsText(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((m): ChatMessage => {
    if (m.role === 'tool') return { role: 'user', content: `[result of tool ${m.name}]:\n${m.content}` };
    if (m.role !== 'assistant' || !m.toolCalls?.length) return m;
    const calls = m.toolCalls.map((c) => `[called tool ${c.name} with ${c.arguments}]`);
    return { role: 'assistant', content: [m.content, ...calls].filter((t) => t !== '').join('\n') };
  });
}

/**
 * The request rewritten for a server without tools: no tools, tool messages as text, the JSON
 * instruction, and `response_format: json_object` unless the server rejected that too.
 */
export function toJsonRequest(request: ChatRequest, responseFormat: boolean): ChatRequest {
  const { tools: _tools, toolChoice: _choice, ...rest } = request;
  return { ...rest, jsonMode: responseFormat, messages: withSystemNote(toolMessagesAsText(request.messages), jsonModeInstruction(request)) };
}
