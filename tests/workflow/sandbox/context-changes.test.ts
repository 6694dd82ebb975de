import { afterAll, describe, expect, it } from 'vitest';
import type { EvaluationResult } from '../../../src/engine/evaluation.js';
import { appendEach } from '../../../src/workflow/run/context-length.js';
import { createSandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { wireContext, wireScope } from '../../../src/workflow/sandbox/wire-contexts.js';
import { workflowDriver } from '../../helpers/workflow-driver.js';
import { state, workflowPlan } from '../../helpers/workflow-plan.js';
import { codeEvaluation, errorOf, expr, scopeOf, stmts, succeeded } from './fixtures.js';

// A job costs what code changed, not the size of the conversation: a context's messages reach the guest as
// JSON it parses only when code reads them, and messages added to a context code never read come back alone
// (`appended`), past its max_length too, and so do those of a context it read and left as addMessage made it;
// a context code changed otherwise (an edit, a push, a new list, cleared) comes back whole (`contexts`).
const sandbox = createSandboxEvaluator();
afterAll(() => sandbox.close());

const floor = [
  { role: 'system' as const, content: 'You help at the shop.' },
  { role: 'user' as const, content: 'Hello' },
  { role: 'assistant' as const, content: 'Welcome' },
];
const scope = scopeOf({ contexts: { floor, back: [] }, context_limits: { floor: 10_000, back: 10_000 } });
const run = async (source: string, over = scope): Promise<EvaluationResult> => sandbox.evaluate(codeEvaluation(stmts(source), over));

describe('what code changed in contexts comes back', () => {
  it('only added to a context it never read: the messages added, not the whole list', async () => {
    const r = succeeded(await run("const c = this.workflow_contexts.get('floor'); c.addMessage({ role: 'user', content: 'More?' }); c.addMessage({ role: 'assistant', content: 'Aisle 4' });"));
    expect(r.appended).toEqual({
      floor: [
        { role: 'user', content: 'More?' },
        { role: 'assistant', content: 'Aisle 4' },
      ],
    });
    expect(r.contexts).toBeUndefined();
  });

  it('added to two contexts: each one’s messages', async () => {
    const r = succeeded(await run("this.contexts.get('floor').addMessage({ role: 'user', content: 'a' }); this.contexts.get('back').addMessage({ role: 'user', content: 'b' });"));
    expect(r.appended).toEqual({ floor: [{ role: 'user', content: 'a' }], back: [{ role: 'user', content: 'b' }] });
  });

  it('read, then added, nothing else changed: the message added (what it read is compared with what it was given)', async () => {
    const r = succeeded(await run("const c = this.workflow_contexts.get('floor'); const n = c.getMessages().length; c.addMessage({ role: 'user', content: 'n=' + n });"));
    expect(r.appended).toEqual({ floor: [{ role: 'user', content: 'n=3' }] });
    expect(r.contexts).toBeUndefined();
  });

  it('read, then changed in place, pushed onto or given a new list, then added: the whole list', async () => {
    for (const change of ["c.messages[0].role = 'user';", "c.messages.push({ role: 'user', content: 'p' });", 'c.messages = c.messages.slice(1);', 'c.messages.reverse();']) {
      const r = succeeded(await run(`const c = this.contexts.get('floor'); ${change} c.addMessage({ role: 'user', content: 'x' });`));
      expect(r.contexts?.floor?.at(-1)).toEqual({ role: 'user', content: 'x' });
      expect(r.appended).toBeUndefined();
    }
  });

  it('a message it read and changed in place, then an added one: both in the whole list', async () => {
    const r = succeeded(await run("const c = this.contexts.get('floor'); c.messages[1].content = 'Hi there'; c.addMessage({ role: 'user', content: 'x' });"));
    expect(r.contexts?.floor?.[1]).toEqual({ role: 'user', content: 'Hi there' });
    expect(r.contexts?.floor).toHaveLength(4);
  });

  it('added before reading: what it reads includes what it added', async () => {
    const r = succeeded(
      await run("const c = this.contexts.get('floor'); c.addMessage({ role: 'user', content: 'x' }); this.common_data.last = c.getLastMessage().content; this.common_data.n = c.messages.length;"),
    );
    expect(r.common_data).toMatchObject({ last: 'x', n: 4 });
    expect(r.appended).toEqual({ floor: [{ role: 'user', content: 'x' }] });
  });

  it('added, then cleared: the empty list', async () => {
    const r = succeeded(await run("const c = this.contexts.get('floor'); c.addMessage({ role: 'user', content: 'x' }); c.clearMessages();"));
    expect(r.contexts).toEqual({ floor: [] });
  });

  it('pushed onto messages directly (not addMessage): nothing comes back, as before', async () => {
    const r = succeeded(await run("this.contexts.get('floor').messages.push({ role: 'user', content: 'sneaky' });"));
    expect(r.contexts).toBeUndefined();
    expect(r.appended).toBeUndefined();
  });

  it('messages replaced by assignment, then added to: the list it assigned, with the message', async () => {
    const r = succeeded(await run("const c = this.contexts.get('floor'); c.messages = [{ role: 'user', content: 'only' }]; c.addMessage({ role: 'assistant', content: 'ok' });"));
    expect(r.contexts).toEqual({
      floor: [
        { role: 'user', content: 'only' },
        { role: 'assistant', content: 'ok' },
      ],
    });
  });

  it('past max_length: only the message added; the engine trims as before (system messages kept, the oldest others go while more than 10 remain)', async () => {
    const many = Array.from({ length: 14 }, (_, i) => ({ role: 'user' as const, content: `m${i}`.padEnd(10, '.') }));
    const list = [{ role: 'system' as const, content: 'S' }, ...many];
    const tight = scopeOf({ contexts: { floor: list }, context_limits: { floor: 141 } });
    const r = succeeded(await run("this.contexts.get('floor').addMessage({ role: 'user', content: 'last......' });", tight));
    expect(r.appended).toEqual({ floor: [{ role: 'user', content: 'last......' }] });
    expect(r.contexts).toBeUndefined();
    const kept = appendEach(list, r.appended!.floor!, 141);
    expect(kept[0]).toEqual({ role: 'system', content: 'S' });
    expect(kept.at(-1)).toEqual({ role: 'user', content: 'last......' });
    expect(kept.reduce((n, m) => n + m.content.length, 0)).toBeLessThanOrEqual(141);
  });

  it('threw after adding: nothing is kept', async () => {
    const r = await run("this.contexts.get('floor').addMessage({ role: 'user', content: 'x' }); throw new Error('boom');");
    expect(errorOf(r)).toMatch(/boom/);
  });

  it('a context that does not exist is named', async () => {
    expect(errorOf(await run("this.getContext('nope').addMessage({ role: 'user', content: 'x' });"))).toMatch(/no context "nope"/);
  });

  it('a message that is not { role, content } is refused, read or not', async () => {
    expect(errorOf(await run("this.contexts.get('floor').addMessage({ role: 'robot', content: 'x' });"))).toMatch(/addMessage needs/);
  });
});

describe('the engine takes messages added the same as the whole list', () => {
  const plan = workflowPlan({
    name: 'wf',
    contexts: [{ name: 'floor', starting: floor, maxLength: 10_000 }],
    states: [state({ name: 'a', enter: stmts('x') }), state({ name: 'stop', final: true })],
    start: 'a',
  });
  const afterCode = (result: EvaluationResult) => {
    const w = workflowDriver(plan);
    w.send({ type: 'start', brief: 'go' });
    w.send({ type: 'evaluated', id: w.evaluation()!.id, result });
    return w.state().workflow!.frames[0]!.contexts.floor;
  };

  it('appended and whole give the same context, the new messages marked as code’s', () => {
    const added = { role: 'user' as const, content: 'More?' };
    const byAppend = afterCode({ ok: true, value: null, common_data: {}, appended: { floor: [added] } });
    const byList = afterCode({ ok: true, value: null, common_data: {}, contexts: { floor: [...floor, added] } });
    expect(byAppend).toEqual(byList);
    expect(byAppend?.at(-1)).toEqual({ ...added, from: 'code' });
  });
});

describe('contexts on the wire', () => {
  it('each message list is serialised once, with the length of its text', () => {
    const list = [
      { role: 'user', content: 'héllo' },
      { role: 'assistant', content: '' },
    ];
    const wire = wireContext(list);
    expect(wire).toEqual({ json: JSON.stringify(list), chars: 5 });
    expect(wireContext(list)).toBe(wire);
  });

  it('the scope carries each context by its size; the messages go apart', () => {
    const { scope: sent, messages } = wireScope({ common_data: {}, contexts: { floor } });
    expect(sent.contexts).toEqual({ floor: { chars: 'You help at the shop.'.length + 'Hello'.length + 'Welcome'.length } });
    expect(JSON.parse(messages!)).toEqual({ floor });
  });
});

describe('messages reach the guest only for code that reads them', () => {
  it('code that catches the fetch still gets the real messages (it runs again with them)', async () => {
    const r = succeeded(await run("let n = -1; try { n = this.contexts.get('floor').messages.length; } catch (e) { n = -2; } this.common_data.n = n;"));
    expect(r.common_data.n).toBe(3);
  });

  it('a condition reading the last message decides on it', async () => {
    const r = succeeded(await sandbox.evaluate(codeEvaluation(expr("this.contexts.get('floor').getLastMessage().content === 'Welcome'"), scope, 'decide')));
    expect(r.value).toBe(true);
  });
});

describe('a part chained after one that added messages runs in the same job', () => {
  const chainedAfter = (code: string, next: string): EvaluationResult | Promise<EvaluationResult> =>
    sandbox.evaluate({ ...codeEvaluation(stmts(code), scope, 'after'), next: { purpose: 'decide', code: stmts(next) } });

  it('it sees the messages added before it, and answers only its own', async () => {
    const r = succeeded(
      await chainedAfter(
        "this.contexts.get('floor').addMessage({ role: 'user', content: 'one' });",
        "const c = this.contexts.get('floor'); c.addMessage({ role: 'assistant', content: 'two' }); this.common_data.seen = c.getMessages().map((m) => m.content).join(','); return 'stop';",
      ),
    );
    expect(r.appended).toEqual({ floor: [{ role: 'user', content: 'one' }] });
    const next = succeeded(r.next!);
    expect(next.value).toBe('stop');
    expect(next.common_data.seen).toBe('You help at the shop.,Hello,Welcome,one,two');
    expect(next.appended).toEqual({ floor: [{ role: 'assistant', content: 'two' }] });
  });

  it('only adding, both: each part answers the messages it added', async () => {
    const r = succeeded(
      await chainedAfter("this.contexts.get('floor').addMessage({ role: 'user', content: 'one' });", "this.contexts.get('back').addMessage({ role: 'user', content: 'b' }); return 'stop';"),
    );
    expect(r.appended).toEqual({ floor: [{ role: 'user', content: 'one' }] });
    expect(succeeded(r.next!).appended).toEqual({ back: [{ role: 'user', content: 'b' }] });
  });

  it('after a part that replaced messages, the next waits for the engine (no next)', async () => {
    const r = succeeded(await chainedAfter("this.contexts.get('floor').clearMessages();", "return 'stop';"));
    expect(r.contexts).toEqual({ floor: [] });
    expect(r.next).toBeUndefined();
  });
});
