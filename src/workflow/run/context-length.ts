import type { WorkflowMessage } from './state.js';

// A context's text length, known per message list: appending to a context that stays within its max_length
// then costs what was added, not a pass over the whole conversation. The lists are never changed in place
// (frames are copied on write), so a list's length, once counted, stays true.
const lengths = new WeakMap<readonly { content: string }[], number>();

/** Characters of text in a message list (counted once per list). */
export function textLength(messages: readonly { content: string }[]): number {
  let length = lengths.get(messages);
  if (length === undefined) {
    length = 0;
    for (const m of messages) length += m.content.length;
    lengths.set(messages, length);
  }
  return length;
}

/** `messages` with `added` after them, and its text length remembered; null when that would pass `maxLength` (the caller trims). */
export function appendedWithin<M extends WorkflowMessage>(messages: readonly M[], added: readonly M[], maxLength: number): M[] | null {
  let length = textLength(messages);
  for (const m of added) length += m.content.length;
  if (length > maxLength) return null;
  const all = messages.concat(added);
  lengths.set(all, length);
  return all;
}
