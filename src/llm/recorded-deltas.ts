import type { ChatDelta } from './chat-model.js';
import { redact } from './redact.js';

// A stream's key: the answer's text, or one tool call's arguments (by its index).
const streamOf = (d: ChatDelta): string => (d.type === 'text' ? 'text' : `tool:${d.index}`);

/**
 * A call's streamed deltas as a recording keeps them. A key the model echoes arrives a few characters per delta,
 * and no piece alone looks like one: each stream (the text, each tool call's arguments) is redacted as it joins
 * up. When that changes nothing the deltas are kept as they came; otherwise each stream is kept as one redacted
 * delta (a replay streams it at once, with the same result).
 */
export function recordedDeltas(deltas: readonly ChatDelta[], redactor: (text: string) => string = redact): ChatDelta[] {
  const joined = new Map<string, { first: ChatDelta; text: string; name?: string }>();
  for (const d of deltas) {
    const key = streamOf(d);
    const stream = joined.get(key);
    if (!stream) joined.set(key, { first: d, text: d.text, ...(d.type === 'tool_arguments' && d.name !== undefined ? { name: d.name } : {}) });
    else {
      stream.text += d.text;
      if (stream.name === undefined && d.type === 'tool_arguments' && d.name !== undefined) stream.name = d.name;
    }
  }
  let clean = true;
  for (const stream of joined.values()) if (redactor(stream.text) !== stream.text) clean = false;
  if (clean) return [...deltas];
  return [...joined.values()].map(({ first, text, name }) =>
    first.type === 'text' ? { type: 'text', text: redactor(text) } : { type: 'tool_arguments', index: first.index, ...(name !== undefined ? { name } : {}), text: redactor(text) },
  );
}
