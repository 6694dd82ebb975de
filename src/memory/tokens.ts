import { countTokens as countO200k } from 'gpt-tokenizer';
import type { ChatMessage } from '../llm/chat-model.js';

// Chat formats wrap each message in a few control tokens (role, separators); 4 matches OpenAI's accounting.
const PER_MESSAGE = 4;
const PER_REPLY = 3;

/** Tokens in a text, counted with the o200k_base tokenizer (gpt-4o family). */
export function countTokens(text: string): number {
  return text === '' ? 0 : countO200k(text);
}

/** Tokens of a chat message including its framing. */
export function messageTokens(message: ChatMessage): number {
  return PER_MESSAGE + countTokens(message.content);
}

/** Tokens of a whole prompt as a chat model counts it. */
export function promptTokens(messages: ChatMessage[]): number {
  return messages.reduce((n, m) => n + messageTokens(m), PER_REPLY);
}
