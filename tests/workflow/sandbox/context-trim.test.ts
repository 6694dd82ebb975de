import { afterAll, describe, expect, it } from 'vitest';
import type { EngineInput } from '../../../src/engine/input-events.js';
import type { EvaluationResult } from '../../../src/engine/evaluation.js';
import { initialState, step } from '../../../src/engine/step.js';
import { compileWorkflow } from '../../../src/workflow/run/compile.js';
import { appendEach } from '../../../src/workflow/run/context-length.js';
import { trimMessages } from '../../../src/workflow/run/frames.js';
import type { WorkflowMessage } from '../../../src/workflow/run/state.js';
import { createSandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { workflowDriver } from '../../helpers/workflow-driver.js';
import { state, workflowPlan } from '../../helpers/workflow-plan.js';
import { codeEvaluation, scopeOf, stmts } from './fixtures.js';

// Code that only adds messages to a context past its max_length costs what it added: the sandbox sends the
// added messages alone and the engine appends them one by one, trimming after each as addMessage does. What
// the context holds after, and what code reads of it, must be exactly what the whole-list path gave.
const sandbox = createSandboxEvaluator();
afterAll(() => sandbox.close());

type Message = { role: 'system' | 'user' | 'assistant'; content: string };
const msg = (role: Message['role'], content: string): Message => ({ role, content });
const plain = (list: readonly { role: string; content: string }[] | undefined) => (list ?? []).map((m) => ({ role: m.role, content: m.content }));

/** The whole-list path: each message appended to the whole list, and the list trimmed (addMessage, one by one). */
function oneByOne(list: readonly Message[], added: readonly Message[], maxLength: number): Message[] {
  let all = [...list];
  for (const m of added) all = trimMessages([...all, m], maxLength);
  return all;
}

// At 100 characters: the first addition passes the limit (the long user message goes), after which a system
// message fits and stays last. Trimming once after both would move it to the front: the two orders differ.
const LIMIT = 100;
const start = [msg('user', 'b'.repeat(50)), ...Array.from({ length: 10 }, (_, i) => msg('user', `u${i}`.padEnd(5, '.')))];
const adds = [msg('assistant', 'a'.repeat(10)), msg('system', 'S'.repeat(5))];
const addCode = (list: readonly Message[]) => list.map((m) => `c.addMessage(${JSON.stringify(m)});`).join(' ');
const scope = scopeOf({ contexts: { floor: start }, context_limits: { floor: LIMIT } });

describe('past max_length, code that only adds sends only what it added', () => {
  it('the answer carries the added messages alone, and the engine keeps what the whole list trimmed one by one gave', async () => {
    const expected = oneByOne(start, adds, LIMIT);
    expect(expected.at(-1)).toEqual(adds[1]);
    expect(expected).not.toEqual(trimMessages([...start, ...adds], LIMIT));
    const r = await sandbox.evaluate(codeEvaluation(stmts(`const c = this.contexts.get('floor'); ${addCode(adds)}`), scope));
    if (!r.ok) throw new Error(r.error);
    expect(r.contexts).toBeUndefined();
    expect(r.appended).toEqual({ floor: adds });
    expect(plain(appendEach(start, r.appended!.floor!, LIMIT))).toEqual(expected);
    // The same code reading the context first, and leaving it as addMessage made it, answers the same; code that
    // cleared it and added back what it read takes the whole-list path: the same messages.
    const read = await sandbox.evaluate(codeEvaluation(stmts(`const c = this.contexts.get('floor'); c.messages.length; ${addCode(adds)}`), scope));
    if (!read.ok) throw new Error(read.error);
    expect(read.appended).toEqual({ floor: adds });
    const whole = await sandbox.evaluate(
      codeEvaluation(stmts(`const c = this.contexts.get('floor'); const was = c.getMessages(); c.clearMessages(); was.forEach((m) => c.addMessage(m)); ${addCode(adds)}`), scope),
    );
    if (!whole.ok) throw new Error(whole.error);
    expect(whole.contexts).toEqual({ floor: expected });
  });

  it('the engine takes them one by one: a system message that fits after the first trim stays last', () => {
    const plan = workflowPlan({
      name: 'wf',
      seedContexts: true,
      contexts: [{ name: 'floor', starting: start, maxLength: LIMIT }],
      states: [state({ name: 'a', enter: stmts('x') }), state({ name: 'stop', final: true })],
      start: 'a',
    });
    const w = workflowDriver(plan);
    w.send({ type: 'start', brief: 'go' });
    w.send({ type: 'evaluated', id: w.evaluation()!.id, result: { ok: true, value: null, common_data: {}, appended: { floor: adds } } });
    expect(plain(w.state().workflow!.frames[0]!.contexts.floor)).toEqual(oneByOne(start, adds, LIMIT));
  });

  it('what code adds passes max_length on its own: the context comes back whole, trimmed one by one as before', async () => {
    const many = Array.from({ length: 12 }, (_, i) => msg(i % 2 ? 'assistant' : 'user', `n${i}`.padEnd(15, '-')));
    const r = await sandbox.evaluate(codeEvaluation(stmts(`const c = this.contexts.get('floor'); ${addCode(many)}`), scope));
    if (!r.ok) throw new Error(r.error);
    expect(r.appended).toBeUndefined();
    expect(r.contexts).toEqual({ floor: oneByOne(start, many, LIMIT) });
  });

  it('a loop adding megabytes past max_length succeeds: the answer stays about max_length, not all it added', async () => {
    const r = await sandbox.evaluate(
      codeEvaluation(stmts("const c = this.contexts.get('floor'); for (let i = 0; i < 2000; i++) c.addMessage({ role: 'user', content: String(i % 10).repeat(5000) });"), scope),
    );
    if (!r.ok) throw new Error(r.error);
    const kept = r.contexts?.floor ?? [];
    expect(kept).toHaveLength(10);
    expect(kept.at(-1)).toEqual(msg('user', '9'.repeat(5000)));
  });

  it('read after adding, in the same part: it sees the messages trimmed as addMessage left them', async () => {
    const r = await sandbox.evaluate(
      codeEvaluation(stmts(`const c = this.contexts.get('floor'); ${addCode(adds)} this.common_data.seen = c.getMessages().map((m) => m.role[0] + m.content.length);`), scope),
    );
    if (!r.ok) throw new Error(r.error);
    expect(r.common_data.seen).toEqual(oneByOne(start, adds, LIMIT).map((m) => m.role[0]! + m.content.length));
  });

  it('chained parts: the next runs in the same job and sees what the first added, trimmed; the engine ends with the whole-list result', async () => {
    const more = [msg('user', 'c'.repeat(30)), msg('assistant', 'd'.repeat(30))];
    const r = await sandbox.evaluate({
      ...codeEvaluation(stmts(`const c = this.contexts.get('floor'); ${addCode(adds)}`), scope, 'after'),
      next: { purpose: 'decide', code: stmts(`const c = this.contexts.get('floor'); ${addCode(more)} return 'stop';`) },
    });
    if (!r.ok) throw new Error(r.error);
    expect(r.appended).toEqual({ floor: adds });
    const next = r.next;
    if (!next?.ok) throw new Error(`no chained answer: ${JSON.stringify(next)}`);
    expect(next.appended).toEqual({ floor: more });
    const kept = appendEach(appendEach(start, adds, LIMIT), more, LIMIT);
    expect(plain(kept)).toEqual(oneByOne(start, [...adds, ...more], LIMIT));
    // A chained part that reads sees the first part's messages trimmed one by one.
    const read = await sandbox.evaluate({
      ...codeEvaluation(stmts(`const c = this.contexts.get('floor'); ${addCode(adds)}`), scope, 'after'),
      next: { purpose: 'decide', code: stmts(`this.common_data.seen = this.contexts.get('floor').messages.map((m) => m.content); return 'stop';`) },
    });
    if (!read.ok || !read.next?.ok) throw new Error(JSON.stringify(read));
    expect(read.next.common_data.seen).toEqual(oneByOne(start, adds, LIMIT).map((m) => m.content));
  });
});

describe('a workflow adding past max_length in one job and in chained parts', () => {
  // Each state's entry code adds messages and its transition's `before` adds more: the sandbox runs them
  // chained. `read` makes each piece clear the context and add back what it read first, which takes the whole-list path.
  const WHOLE = "const m = this.contexts.get('floor'), was = m.getMessages(); m.clearMessages(); was.forEach((x) => m.addMessage(x)); ";
  // Reads the context, and the last message of it after adding: left as addMessage made it.
  const LOOK = "this.common_data.n = this.contexts.get('floor').messages.length; ";
  const planOf = (read: boolean | string) => {
    const prefix = read === true ? WHOLE : read || '';
    const adding = (i: number) =>
      stmts(
        `${prefix}const c = this.contexts.get('floor'); c.addMessage({ role: 'assistant', content: 'x'.repeat(${7 + ((i * 13) % 40)}) }); c.addMessage({ role: ${i % 3 === 0 ? "'system'" : "'user'"}, content: 'y'.repeat(${3 + ((i * 7) % 20)}) });`,
      );
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    return workflowPlan({
      name: 'wf',
      seedContexts: true,
      contexts: [{ name: 'floor', starting: [msg('system', 'You help.'), ...start], maxLength: LIMIT }],
      states: [
        ...names.map((name, i) =>
          state({
            name,
            enter: adding(i * 2),
            transitions: [{ target: names[i + 1] ?? 'stop', condition: null, before: adding(i * 2 + 1) }],
          }),
        ),
        state({ name: 'stop', final: true }),
      ],
      start: 'a',
    });
  };

  /** Runs the plan on the core with the sandbox: the context it ends with, and how many jobs it took. */
  async function run(read: boolean | string): Promise<{ floor: Message[]; jobs: number }> {
    const plan = planOf(read);
    // The sandbox's jobs are counted: the steps leave it every evaluation that runs code.
    const def = compileWorkflow(plan, {}, { tierInStep: false });
    let s = initialState(def, { id: 'w' });
    const queue: EngineInput[] = [{ type: 'start', brief: 'go' }];
    let jobs = 0;
    while (queue.length > 0) {
      const r = step(def, s, queue.shift()!);
      s = r.session;
      for (const fx of r.effects) {
        if (fx.type !== 'evaluate') continue;
        jobs += 1;
        const result: EvaluationResult = await sandbox.evaluate(fx.evaluation);
        queue.push({ type: 'evaluated', id: fx.id, result });
      }
    }
    expect(s.status).not.toBe('failed');
    return { floor: plain(s.workflow!.frames[0]!.contexts.floor) as Message[], jobs };
  }

  it('ends with the context the whole-list path gave, and the reference trimming one message at a time', async () => {
    const byAppend = await run(false);
    const byList = await run(true);
    expect(byAppend.floor).toEqual(byList.floor);
    // The same additions, one by one, by the reference.
    let expected: Message[] = [msg('system', 'You help.'), ...start];
    for (let i = 0; i < 12; i++) expected = oneByOne(expected, [msg('assistant', 'x'.repeat(7 + ((i * 13) % 40))), msg(i % 3 === 0 ? 'system' : 'user', 'y'.repeat(3 + ((i * 7) % 20)))], LIMIT);
    expect(byAppend.floor).toEqual(expected);
    // Adding only, the parts stay chained past the limit: the first entry code, then each transition's `before`
    // with the entry code of the state it goes to, in one job (11 when passing the limit stopped the chain).
    expect(byAppend.jobs).toBe(7);
    expect(byList.jobs).toBe(12);
  });

  it('code that reads the context and only adds to it answers what it added: the same context, the parts still chained', async () => {
    const looked = await run(LOOK);
    expect(looked.floor).toEqual((await run(false)).floor);
    expect(looked.jobs).toBe(7);
  });
});

describe('appendEach', () => {
  /** A deterministic stream of messages of varied sizes and roles (no clock, no randomness). */
  const stream = (i: number): WorkflowMessage => ({ role: i % 5 === 0 ? 'system' : i % 2 ? 'assistant' : 'user', content: `m${i}:${'x'.repeat((i * 37) % 90)}` });

  it('gives what appending one by one to the whole list gives, at every size around max_length, several at once', () => {
    for (const maxLength of [0, 50, 400, 1_000, 100_000]) {
      let fast: WorkflowMessage[] = [];
      let whole: WorkflowMessage[] = [];
      for (let i = 0; i < 150; i++) {
        const added = Array.from({ length: i % 5 }, (_, k) => stream(i * 5 + k));
        const before = fast;
        fast = appendEach(fast, added, maxLength);
        for (const m of added) whole = trimMessages([...whole, m], maxLength);
        expect(fast).toEqual(whole);
        if (added.length > 0) expect(fast).not.toBe(before);
      }
    }
  });
});
