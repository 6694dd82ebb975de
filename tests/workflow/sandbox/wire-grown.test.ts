import { afterEach, describe, expect, it, vi } from 'vitest';
import { wireContext } from '../../../src/workflow/sandbox/wire-contexts.js';

// A context's messages go to the sandbox as JSON made once per message list; a list that only grew from the
// last one extends that one's JSON. Whatever the lists, the JSON must be exactly the list's.
type Message = { role: string; content: string };
const message = (i: number): Message => ({ role: i % 5 === 0 ? 'system' : i % 2 ? 'assistant' : 'user', content: `m${i} "quoted" \u2028 ${'x'.repeat(i % 7)}` });
const exact = (list: readonly Message[]) => ({ json: JSON.stringify(list.map((m) => ({ role: m.role, content: m.content }))), chars: list.reduce((n, m) => n + m.content.length, 0) });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('contexts on the wire, as they grow', () => {
  it('is the list’s JSON through appends, trims, a middle message replaced, older and shorter lists, and empty ones', () => {
    let list: Message[] = [];
    const kept: Message[][] = [];
    for (let i = 0; i < 120; i++) {
      if (i % 17 === 16)
        list = list.slice(3); // trimmed: the front goes
      else if (i % 23 === 22)
        list = list.map((m, k) => (k === Math.floor(list.length / 2) ? { ...m, content: `${m.content}!` } : m)); // code replaced one in the middle
      else if (i % 29 === 28) list = list.slice(0, list.length - 2);
      else if (i === 60) list = [];
      else list = list.concat(Array.from({ length: 1 + (i % 3) }, (_, k) => message(i * 3 + k)));
      kept.push(list);
      expect(wireContext(list)).toEqual(exact(list));
      // An older list asked for again reads as it was.
      const older = kept[Math.floor(i / 2)]!;
      expect(wireContext(older)).toEqual(exact(older));
    }
  });

  it('a list that grew from the last one serialises only what was added', () => {
    const base = Array.from({ length: 200 }, (_, i) => message(i));
    wireContext(base);
    const stringify = vi.spyOn(JSON, 'stringify');
    const grown = base.concat([message(1000), message(1001)]);
    expect(wireContext(grown)).toEqual(exact(grown));
    // The first call is the test's own (exact); the wire's came before it, with the two added messages only.
    const lengths = stringify.mock.calls.map((call) => (Array.isArray(call[0]) ? call[0].length : -1));
    expect(lengths[0]).toBe(2);
  });
});
