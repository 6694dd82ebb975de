import { describe, expect, it } from 'vitest';
import { ContextViews } from '../../../src/workflow/run/context-view.js';
import { appendEach } from '../../../src/workflow/run/context-length.js';
import { trimMessages } from '../../../src/workflow/run/frames.js';
import type { WorkflowMessage } from '../../../src/workflow/run/state.js';

// A context grows by appends that cost what was added (its length known per list; appendEach against trimming
// the whole list: tests/workflow/sandbox/context-trim.test.ts) and is shown to agents with each message mapped
// once: both must give exactly what the whole-context versions gave.

/** What an agent saw before ContextViews: the whole context mapped for each request. */
const mapped = (mirror: boolean, context: readonly WorkflowMessage[]) =>
  context.map((m) => ({ role: m.role === 'system' ? 'system' : mirror ? (m.role === 'user' ? 'assistant' : 'user') : m.role, content: m.content }));

/** A deterministic stream of messages of varied sizes and roles (no clock, no randomness). */
function message(i: number): WorkflowMessage {
  const role = i % 7 === 0 ? 'system' : i % 2 ? 'assistant' : 'user';
  return { role, content: `m${i}:${'x'.repeat((i * 37) % 90)}` };
}

describe('appending to a context', () => {
  it('never changes the list it appends to (frames are copied on write)', () => {
    const before = [message(1), message(2)];
    const copy = structuredClone(before);
    const after = appendEach(before, [message(3)], 10_000);
    expect(before).toEqual(copy);
    expect(after).not.toBe(before);
    expect(after).toEqual([...copy, message(3)]);
  });
});

describe('contexts as agents see them', () => {
  it('equal the whole context mapped, for agents of both sides taking turns, as the context grows, is trimmed and is replaced', () => {
    const views = new ContextViews();
    let context: WorkflowMessage[] = [];
    for (let i = 0; i < 200; i++) {
      if (i === 120)
        context = context.slice(0, 30).concat(message(9_999)); // code replaced the context (a middle message changed)
      else if (i % 50 === 49)
        context = trimMessages(context, 800); // trimmed: the front goes
      else context = appendEach(context, [message(i)], 1_000_000);
      const mirror = i % 2 === 1;
      expect(views.seenBy(mirror, context)).toEqual(mapped(mirror, context));
      expect(views.seenBy(!mirror, context)).toEqual(mapped(!mirror, context));
    }
  });

  it('a message replaced in the middle (same length, same first and last message) is seen as it is now', () => {
    const views = new ContextViews();
    const context = [message(1), message(2), message(3)];
    expect(views.seenBy(false, context)).toEqual(mapped(false, context));
    const changed = [context[0]!, { role: 'user' as const, content: 'changed' }, context[2]!];
    expect(views.seenBy(false, changed)).toEqual(mapped(false, changed));
  });

  it('an older context asked for again after a newer one (a shorter list) is seen as it is', () => {
    const views = new ContextViews();
    const long = [message(1), message(2), message(3)];
    expect(views.seenBy(true, long)).toEqual(mapped(true, long));
    expect(views.seenBy(true, long.slice(0, 1))).toEqual(mapped(true, long.slice(0, 1)));
    expect(views.seenBy(true, long)).toEqual(mapped(true, long));
  });
});
