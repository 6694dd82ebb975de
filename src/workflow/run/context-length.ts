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
function appendedWithin<M extends WorkflowMessage>(messages: readonly M[], added: readonly M[], maxLength: number): M[] | null {
  let length = textLength(messages);
  for (const m of added) length += m.content.length;
  if (length > maxLength) return null;
  const all = messages.concat(added);
  lengths.set(all, length);
  return all;
}

/** Messages a trimmed context always keeps besides its system messages (seed 000's WorkflowContext, as SynthDev). */
export const KEPT_MESSAGES = 10;

/**
 * `messages` with each of `added` appended as SynthDev's WorkflowContext.addMessage appends it: after each one,
 * when the text passes `maxLength`, the system messages move to the front and the oldest others go while more
 * than 10 remain (trimMessages, message by message). Past the limit it costs one pass to split the list, then
 * what was added and dropped, not a trim over the whole list per message.
 */
export function appendEach<M extends WorkflowMessage>(messages: readonly M[], added: readonly M[], maxLength: number): M[] {
  const within = appendedWithin(messages, added, maxLength);
  if (within) return within;
  let length = textLength(messages);
  // The list is always system ++ others[first..] ++ tail: tail is what came since the last trim, in its order.
  const system: M[] = [];
  const others: M[] = [];
  let first = 0;
  let tail: M[] = messages.slice();
  for (const m of added) {
    tail.push(m);
    length += m.content.length;
    if (length <= maxLength) continue;
    for (const t of tail) (t.role === 'system' ? system : others).push(t);
    tail = [];
    while (length > maxLength && others.length - first > KEPT_MESSAGES) length -= others[first++]!.content.length;
  }
  const all = system.concat(others.slice(first), tail);
  lengths.set(all, length);
  return all;
}
