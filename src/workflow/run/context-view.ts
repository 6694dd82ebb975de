import type { ChatMessage } from '../../llm/chat-model.js';
import type { WorkflowMessage } from './state.js';
import { objectList } from '../../engine/packed.js';

/** One message as an agent sees it: mirrored for a `user` agent (the others' user turns are its assistant turns and back). */
function viewOf(m: WorkflowMessage, mirror: boolean): ChatMessage {
  return { role: m.role === 'system' ? 'system' : mirror ? (m.role === 'user' ? 'assistant' : 'user') : m.role, content: m.content };
}

interface Seen {
  source: readonly WorkflowMessage[];
  /** The source's length (kept: the empty source it starts from is an array of another map than the contexts). */
  length: number;
  view: ChatMessage[];
}

function seenNothing(): Seen {
  return { source: objectList(), length: 0, view: objectList() };
}

/**
 * Contexts as agents see them, each message mapped once: a request reuses what the one before it (for
 * agents who see the conversation the same way) mapped of the messages the two share, and maps only the
 * ones added since. Messages are never changed in place, so the same message object reads the same.
 */
export class ContextViews {
  // Each starts as the view of no messages (an array of its own, never a context), not null: `was` keeps one shape,
  // and the optimised seenBy was thrown away when a new session's first request found null there (measured: --trace-deopt).
  // Their arrays hold objects from the start (objectList): the view is pushed into, the source read as contexts are.
  private readonly last: { plain: Seen; mirrored: Seen } = { plain: seenNothing(), mirrored: seenNothing() };

  /** The context as an agent playing `user` (mirror) or `assistant` sees it. The list is shared: callers copy it, never change it. */
  seenBy(mirror: boolean, context: readonly WorkflowMessage[]): readonly ChatMessage[] {
    const was = mirror ? this.last.mirrored : this.last.plain;
    if (was.source === context) return was.view;
    let shared = 0;
    const length = context.length;
    for (const n = Math.min(was.length, length); shared < n && was.source[shared] === context[shared]; ) shared++;
    // The context only grew (the usual case): the view grows in place (no caller holds it past its request).
    const view = shared === was.length ? was.view : was.view.slice(0, shared);
    for (let i = shared; i < length; i++) view.push(viewOf(context[i]!, mirror));
    const seen = { source: context, length, view };
    if (mirror) this.last.mirrored = seen;
    else this.last.plain = seen;
    return view;
  }
}
