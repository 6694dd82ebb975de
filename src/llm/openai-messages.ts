import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ChatMessage } from './chat-model.js';

/**
 * The wire form of one message: an assistant's tool calls become `tool_calls` (its text `null` when it
 * said nothing, as some servers reject an empty string beside tool calls), a tool result becomes a
 * `tool` message with `tool_call_id`.
 */
export function toWireMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant':
      if (!message.toolCalls?.length) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
      };
    default:
      return { role: message.role, content: message.content };
  }
}

/** The wire form of a whole prompt. */
export function toWireMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map(toWireMessage);
}
