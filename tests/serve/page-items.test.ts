import { describe, expect, it } from 'vitest';
import { EVENT_NAMES } from '../../src/kinds/schemas.js';
import { DISPLAY_START, displayNames, displayStep } from '../../src/report/display-items.js';
import { sseMessage } from '../../src/serve/sse-message.js';
import { livePage } from '../../src/serve/page.js';
import { sampleEvent } from '../helpers/event-samples.js';
import { studio } from '../helpers/team.js';

/** Just enough of a DOM element for the live page: text, children, class, handlers. */
class FakeElement {
  className = '';
  value = '';
  dataset: Record<string, string> = {};
  children: FakeElement[] = [];
  scrollTop = 0;
  private own = '';
  onclick: unknown = null;
  onchange: unknown = null;
  onsubmit: unknown = null;
  get textContent(): string {
    return this.own + this.children.map((c) => c.textContent).join('');
  }
  set textContent(text: string) {
    this.own = text;
    this.children = [];
  }
  appendChild(child: FakeElement): void {
    this.children.push(child);
  }
}

/** An EventSource that records its listeners, so the test delivers the messages. */
class FakeEventSource {
  static last: FakeEventSource | null = null;
  readonly listeners = new Map<string, (m: { data: string }) => void>();
  readyState = 1;
  onmessage: ((m: { data: string }) => void) | null = null;
  constructor(readonly url: string) {
    FakeEventSource.last = this;
  }
  addEventListener(name: string, listener: (m: { data: string }) => void): void {
    this.listeners.set(name, listener);
  }
  close(): void {}
}

/** Runs the live page's script on a fake DOM; returns its elements and the stream it opened for a session. */
function loadPage(): { el: (id: string) => FakeElement; select: (id: string) => void } {
  const script = /<script>([\s\S]*)<\/script>/.exec(livePage())![1]!;
  const elements = new Map<string, FakeElement>();
  const el = (id: string) => elements.get(id) ?? elements.set(id, new FakeElement()).get(id)!;
  const document = { getElementById: el, createElement: () => new FakeElement(), createTextNode: (text: string) => Object.assign(new FakeElement(), { textContent: text }) };
  const localStorage = { getItem: () => null, setItem: () => undefined };
  const fetch = async () => ({ ok: false });
  const run = new Function('document', 'localStorage', 'fetch', 'setInterval', 'EventSource', `${script}\nreturn { select };`) as (...args: unknown[]) => { select: (id: string) => void };
  const { select } = run(document, localStorage, fetch, () => 0, FakeEventSource);
  return { el, select };
}

describe('the live page', () => {
  it('listens to every event and shows its display items as the terminal words them', () => {
    const page = loadPage();
    page.select('s1');
    const source = FakeEventSource.last!;
    expect([...source.listeners.keys()].sort()).toEqual([...EVENT_NAMES].sort());
    const names = displayNames(studio().def);
    let state = DISPLAY_START;
    for (const [i, name] of EVENT_NAMES.entries()) {
      const e = sampleEvent(name, i + 1);
      const step = displayStep(state, e, names);
      state = step.state;
      const message = sseMessage(e, step.items);
      expect(message.event).toBe(name);
      source.listeners.get(name)!({ data: message.data });
      const shown = [page.el('log'), page.el('live'), page.el('arbiter')].map((x) => x.textContent).join('\n');
      for (const item of step.items) {
        if (item.kind === 'user' && item.brief) continue;
        const words = item.kind === 'output' ? item.lines[1]! : item.text;
        expect(shown, `${name}: ${words}`).toContain(words);
      }
    }
    expect(page.el('log').textContent).toContain('⚖ CEO (round 2): does not agree, wants changes — the tide loop is thin');
    expect(page.el('arbiter').textContent).toBe('arbiter: CEO 1.00 [user] ✓, bob dropped (unknown persona) — the user asked');
  });
});
