import { beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../../src/engine/evaluation.js';
import { appendEach } from '../../../src/workflow/run/context-length.js';
import type { WorkflowMessage } from '../../../src/workflow/run/state.js';
import { createSandboxEvaluator, SandboxPool, type SandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { listDelta, messagesDelta } from '../../../src/workflow/sandbox/kept-messages.js';
import { splitScope } from '../../../src/workflow/sandbox/kept-fields.js';
import { DEFAULT_LIMITS } from '../../../src/workflow/sandbox/program.js';
import { runJob, type Job } from '../../../src/workflow/sandbox/run-job.js';
import { wireContexts, wireList, type WireList } from '../../../src/workflow/sandbox/wire-contexts.js';
import { codeEvaluation, expr, guestContextFor, jobOf, PLACEMENTS, sandboxSessions, scopeOf, stmts, succeededValue } from './fixtures.js';

// A context's messages stay in the guest between a session's jobs: a job whose code reads them sends what changed
// since the list the guest holds. Code never gets the kept messages, only copies made for each part; the host
// knows exactly what the guest holds, per guest context (a session's), and starts again from the whole list
// when it cannot know.
type Message = WorkflowMessage;
const msg = (i: number, role: Message['role'] = i % 2 ? 'assistant' : 'user'): Message => ({ role, content: `m${i} "q" \\ \u2028 ${'x'.repeat(i % 5)}` });

// What the guest does with a delta (guest.ts keepMessages), on plain arrays.
function applied(held: Message[] | undefined, delta: string | null): Message[] | undefined {
  if (delta === null) return held;
  const d = JSON.parse(delta) as Message[] | [number, number, Message[]];
  if (typeof d[0] !== 'number') return d as Message[];
  const [keep, upTo, added] = d as [number, number, Message[]];
  const list = held!.slice();
  list.splice(keep, upTo - keep);
  return list.concat(added);
}

describe('the difference from the list the guest holds', () => {
  it('turns any list into any other: appends, trims past max_length (system messages kept), replacements, edits, older lists', () => {
    let list: Message[] = [{ role: 'system', content: 'You help.' }];
    const seen: Message[][] = [list];
    for (let i = 0; i < 300; i++) {
      if (i % 41 === 40) list = [msg(i), msg(i + 1)];
      else if (i % 31 === 30) list = list.map((m, k) => (k === list.length >> 1 ? { ...m, content: `${m.content}!` } : m));
      else if (i % 19 === 18) list = list.slice(0, -1);
      else list = appendEach(list, [msg(i), ...(i % 3 === 0 ? [msg(i, 'system')] : [])], 300);
      seen.push(list);
      for (const held of [seen[i], seen[i >> 1], seen[Math.max(0, i - 3)], []] as Message[][]) {
        expect(applied(held, listDelta(wireList(held), wireList(list)))).toEqual(list);
      }
      expect(applied(undefined, listDelta(undefined, wireList(list)))).toEqual(list);
    }
  });

  it('sends what was appended, and what was dropped as two numbers, not the conversation', () => {
    const base: Message[] = [{ role: 'system', content: 'S' }, ...Array.from({ length: 200 }, (_, i) => msg(i))];
    const grown = base.concat([msg(1000)]);
    expect(listDelta(wireList(base), wireList(grown))).toBe(`[201,201,${JSON.stringify([msg(1000)])}]`);
    // Past max_length: the oldest others go after the system message, then the added one.
    const trimmed = [base[0]!, ...base.slice(4), msg(1001)];
    expect(listDelta(wireList(base), wireList(trimmed))).toBe(`[1,4,${JSON.stringify([msg(1001)])}]`);
    expect(listDelta(wireList(grown), wireList(grown))).toBeNull();
  });

  it('by context: only the ones that changed; the others the guest holds stay', () => {
    const a = [msg(1)];
    const b = [msg(2)];
    const first = messagesDelta(null, { a: wireList(a), b: wireList(b) });
    expect(JSON.parse(first.json)).toEqual({ a, b });
    const second = messagesDelta(first.held, { a: wireList(a.concat(msg(3))) });
    expect(JSON.parse(second.json)).toEqual({ a: [1, 1, [msg(3)]] });
    expect([...second.held.keys()]).toEqual(['a', 'b']);
    expect(messagesDelta(second.held, { a: wireList(a.concat(msg(3))), b: wireList(b) }).json).toBe('{}');
  });
});

/** The job the evaluator sends: kept fields apart, each context's messages as a WireList. */
function keptJob(contexts: Record<string, Message[]>, source: string, session = 's'): Job {
  const scope = scopeOf({ contexts, context_limits: Object.fromEntries(Object.keys(contexts).map((n) => [n, 100_000])) });
  const job = jobOf(codeEvaluation(stmts(source), scope));
  const wired = wireContexts(scope);
  return { ...job, session, ...splitScope(wired.scope, (_k, v) => v), lists: wired.lists, limits: { ...DEFAULT_LIMITS, maxSteps: 100_000 } };
}

const SEE = "return this.contexts.get('c').messages.map((m) => [m.role, m.content, Object.keys(m).length]);";
const seen = (list: Message[]) => list.map((m) => [m.role, m.content, 2]);
// Everything code can do to the messages it is given, and to the lists: none of it may reach the next job.
const MUTATE = `
const c = this.contexts.get('c'), ms = c.messages;
ms[0].content = 'evil'; ms[0].role = 'system'; ms[0].extra = 1;
Object.defineProperty(ms[1], 'content', { get() { return 'getter'; }, enumerable: true });
Object.setPrototypeOf(ms[2], { injected: true });
ms.push({ role: 'user', content: 'pushed' }); ms.splice(1, 1); ms.reverse();
try { Object.getPrototypeOf(ms).evil = 1; } catch (e) {}
return ms.length;`;

describe('what code does to the messages it is given never reaches the next job', () => {
  const guest = guestContextFor({ ...DEFAULT_LIMITS, maxSteps: 100_000 });
  const value = (job: Job): unknown => {
    const r = JSON.parse(runJob(job, guest()).result) as { ok: boolean; value?: unknown; error?: string };
    if (!r.ok) throw new Error(r.error);
    return r.value;
  };
  const list = [msg(0), msg(1), msg(2), msg(3)];

  it('pushed, spliced, edited, given properties, getters and prototypes in job N: job N+1 reads the engine’s list', () => {
    expect(value(keptJob({ c: list }, SEE))).toEqual(seen(list));
    expect(value(keptJob({ c: list }, MUTATE))).toBe(4);
    // The same list: nothing is sent again, the guest's copy is what the next job reads.
    expect(value(keptJob({ c: list }, SEE))).toEqual(seen(list));
    expect(value(keptJob({ c: list }, MUTATE))).toBe(4);
    expect(value(keptJob({ c: list }, "const ms = this.contexts.get('c').messages; return [ms[1].content, ms[2].injected === undefined, ms.evil === undefined];"))).toEqual([
      list[1]!.content,
      true,
      true,
    ]);
  });

  it('within one job, each part gets its own copies', () => {
    expect(value(keptJob({ c: list }, "const a = this.contexts.get('c').messages; a[0].content = 'x'; return this.getContext('c').messages[0].content;"))).toBe('x');
    expect(value(keptJob({ c: list }, "return this.getContext('c').messages[0].content;"))).toBe(list[0]!.content);
  });
});

describe('the guest reads the engine’s list after any change', () => {
  const guest = guestContextFor({ ...DEFAULT_LIMITS, maxSteps: 100_000 });
  const read = (contexts: Record<string, Message[]>): unknown => (JSON.parse(runJob(keptJob(contexts, SEE), guest()).result) as { value: unknown }).value;

  it('grown, trimmed past max_length, replaced, edited in the middle, shortened, emptied, grown again', () => {
    let list: Message[] = [{ role: 'system', content: 'You help at the shop.' }, msg(1), msg(2)];
    const lists: Message[][] = [list];
    list = list.concat(msg(3));
    lists.push(list);
    list = appendEach(
      list,
      Array.from({ length: 14 }, (_, i) => msg(10 + i)),
      200,
    );
    lists.push(list);
    list = appendEach(list, [msg(40)], 200);
    lists.push(list);
    list = list.map((m) => ({ ...m, content: m.content.toUpperCase() }));
    lists.push(list);
    list = list.map((m, i) => (i === 5 ? { role: 'user', content: 'changed' } : m));
    lists.push(list, list.slice(0, 3), [], [msg(50)], [msg(50), msg(51)]);
    for (const l of lists) expect(read({ c: l })).toEqual(seen(l));
    // Back to an older list.
    expect(read({ c: lists[1]! })).toEqual(seen(lists[1]!));
  });

  it('after a failed job (it may have taken the messages or not), the whole list again', () => {
    const a = [msg(1), msg(2)];
    expect(read({ c: a })).toEqual(seen(a));
    const failed = runJob(keptJob({ c: a.concat(msg(3)) }, "this.contexts.get('c').messages; while (true) {}"), guest());
    expect(JSON.parse(failed.result)).toMatchObject({ ok: false });
    expect(guest().lists).toBeNull();
    const b = a.concat(msg(3), msg(4));
    expect(read({ c: b })).toEqual(seen(b));
    expect(guest().lists?.get('c')?.json).toBe(wireList(b).json);
  });
});

describe.each(PLACEMENTS)('sessions and their guest contexts, $placement', ({ inline }) => {
  const sessions = sandboxSessions(inline, ['', ''], codeEvaluation(expr('1'), scopeOf(), 'input'), 4);
  let one: SandboxEvaluator;
  let two: SandboxEvaluator;
  beforeAll(() => {
    [one, two] = sessions() as [SandboxEvaluator, SandboxEvaluator];
  });
  const read = (session: SandboxEvaluator, list: Message[], source = SEE): Promise<unknown> =>
    succeededValue(session.evaluate(codeEvaluation(stmts(source), scopeOf({ contexts: { c: list }, context_limits: { c: 100_000 } } as Partial<Scope>))));

  it('two sessions on one thread, contexts of the same name: each reads its own list, job after job', async () => {
    let a: Message[] = [msg(1)];
    let b: Message[] = [msg(101), msg(102), msg(103)];
    for (let i = 0; i < 6; i++) {
      expect(await read(one, a)).toEqual(seen(a));
      expect(await read(two, b)).toEqual(seen(b));
      a = a.concat(msg(10 + i));
      b = i === 3 ? [msg(200)] : b.concat(msg(110 + i));
    }
  });

  it('a guest context thrown away after a failure: the next reads the whole list', async () => {
    const a = [msg(1), msg(2)];
    expect(await read(one, a)).toEqual(seen(a));
    const r = await one.evaluate(codeEvaluation(stmts("this.contexts.get('c').messages; throw new Error('boom');"), scopeOf({ contexts: { c: a.concat(msg(3)) } })));
    expect(r.ok).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    const b = a.concat(msg(3), msg(4));
    expect(await read(one, b)).toEqual(seen(b));
    expect(await read(one, b.concat(msg(5)))).toEqual(seen(b.concat(msg(5))));
  });
});

describe('on a pool of one thread, sessions that end', () => {
  it('a new session on the thread of one that ended never reads its lists', async () => {
    const pool = new SandboxPool({ size: 1 });
    try {
      const first = createSandboxEvaluator({ pool });
      const list = [msg(1), msg(2)];
      const r1 = await first.evaluate(codeEvaluation(stmts(SEE), scopeOf({ contexts: { c: list } })));
      expect(r1).toMatchObject({ ok: true, value: seen(list) });
      await first.close();
      const second = createSandboxEvaluator({ pool });
      const r2 = await second.evaluate(codeEvaluation(stmts(SEE), scopeOf({ contexts: { c: [] } })));
      expect(r2).toMatchObject({ ok: true, value: [] });
      await second.close();
    } finally {
      await pool.close();
    }
  });
});

// The WireList of a list with hostile text: quotes, backslashes, line separators, lone surrogates, control characters.
describe('message bounds on the wire', () => {
  it('each message’s end, whatever its text, and after the list grew', () => {
    const hostile = ['"', '\\', '\\"', '"\\', '\u2028\u2029', '\ud800', '\u0000\u001f', '}],{"role":"x"', ''].map((content, i) => ({ role: i % 2 ? 'user' : 'assistant', content }) as Message);
    const check = (w: WireList, list: Message[]) => {
      expect(w.json).toBe(JSON.stringify(list));
      list.forEach((m, i) => expect(w.json.slice(i === 0 ? 1 : w.ends[i - 1]! + 1, w.ends[i])).toBe(JSON.stringify(m)));
    };
    check(wireList(hostile), hostile);
    const grown = hostile.concat(hostile.map((m) => ({ ...m })));
    check(wireList(grown), grown);
  });
});
