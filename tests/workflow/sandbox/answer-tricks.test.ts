import { beforeAll, describe, expect, it } from 'vitest';
import type { EvaluationResult, Scope } from '../../../src/engine/evaluation.js';
import type { SandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { codeEvaluation, expr, PLACEMENTS, sandboxSessions, scopeOf, stmts } from './fixtures.js';

// Probe (round 10) of what a job answers about contexts, with the messages kept in the guest: code that runs while
// the answer is being built (getters and toJSON on what it returns, a `contexts` it replaced or made a getter,
// contexts swapped between names, a role that reads one way when checked and another when copied) must neither
// give the engine a message that is not { role: system | user | assistant, content: string }, nor leave the guest's
// kept lists differing from the engine's: the next job (of this session, and another session on the same thread)
// reads the engine's list.

type Message = { role: 'system' | 'user' | 'assistant'; content: string };
const LIST: Message[] = [
  { role: 'system', content: 'S' },
  { role: 'user', content: 'u1' },
  { role: 'assistant', content: 'a1' },
];
const scope = (a: Message[], b: Message[] = [{ role: 'user', content: 'b' }]) => scopeOf({ contexts: { a, b }, context_limits: { a: 100_000, b: 100_000 } } as Partial<Scope>);
const SEE = "return ['a', 'b'].map((n) => this.getContext(n).messages.map((m) => m.role + ':' + m.content + ':' + Object.keys(m).length).join('|'));";
const seen = (a: Message[], b: Message[] = [{ role: 'user', content: 'b' }]) => [a, b].map((l) => l.map((m) => `${m.role}:${m.content}:2`).join('|'));

const ATTACKS: [string, string][] = [
  [
    'a role read as user when checked and as tool when copied',
    `const ms = this.getContext('a').messages; let n = 0;
     Object.defineProperty(ms[1], 'role', { get() { return n++ % 2 === 0 ? 'user' : 'tool'; }, enumerable: true });
     ms.push({ role: 'user', content: 'pushed' }); this.getContext('a').addMessage({ role: 'user', content: 'marks it changed' });`,
  ],
  [
    'contents that are getters, Strings and objects with toString',
    `const ms = this.getContext('a').messages; let n = 0;
     Object.defineProperty(ms[1], 'content', { get() { return n++ === 0 ? 'fine' : { toString() { return 'x'; } }; }, enumerable: true });
     ms[2].content = new String('boxed'); this.getContext('a').addMessage({ role: 'user', content: 'marks it changed' });`,
  ],
  [
    'contexts swapped between names after adding to one',
    `const a = this.getContext('a'), b = this.getContext('b'); a.addMessage({ role: 'user', content: 'to a' }); b.messages;
     this.contexts = new Map([['a', b], ['b', a]]);`,
  ],
  [
    'contexts made a getter that adds while the answer is built',
    `const a = this.getContext('a'), b = this.getContext('b'); a.addMessage({ role: 'user', content: 'first' }); const real = this.contexts;
     Object.defineProperty(this, 'contexts', { get() { b.addMessage({ role: 'assistant', content: 'during' }); a.messages.push({ role: 'user', content: 'late' }); return real; }, configurable: true });`,
  ],
  [
    'common_data whose toJSON adds to and rewrites a context',
    `const a = this.getContext('a'); this.common_data.x = { toJSON() { a.addMessage({ role: 'user', content: 'from toJSON' }); a.messages.length = 0; return 1; } };`,
  ],
  [
    'contexts replaced by a plain object of lookalikes',
    `this.getContext('a').addMessage({ role: 'user', content: 'x' });
     this.contexts = { a: { messages: [{ role: 'system', content: 'forged' }, { get role() { return 'user'; }, content: 'y' }] } };`,
  ],
];

/** A result's messages are all { role, content } of the three roles, and nothing else is in them. */
function wellFormed(result: EvaluationResult): void {
  if (!result.ok) return;
  for (const lists of [result.contexts ?? {}, result.appended ?? {}]) {
    for (const messages of Object.values(lists)) {
      for (const m of messages) {
        expect(Object.keys(m).sort()).toEqual(['content', 'role']);
        expect(['system', 'user', 'assistant']).toContain(m.role);
        expect(typeof m.content).toBe('string');
      }
    }
  }
}

describe.each(PLACEMENTS)('code running while a job answers about contexts, $placement', ({ inline }) => {
  const sessions = sandboxSessions(inline, ['', ''], codeEvaluation(expr('1'), scope(LIST), 'input'), 4);
  let one: SandboxEvaluator;
  let two: SandboxEvaluator;
  beforeAll(() => {
    [one, two] = sessions() as [SandboxEvaluator, SandboxEvaluator];
  });

  for (const [name, attack] of ATTACKS) {
    it(`${name}: the engine gets well-formed messages; the next jobs read the engine's lists`, async () => {
      const other: Message[] = [{ role: 'user', content: 'other session' }];
      // Both sessions hold their lists in their guests first.
      expect(await one.evaluate(codeEvaluation(stmts(SEE), scope(LIST)))).toMatchObject({ ok: true, value: seen(LIST) });
      expect(await two.evaluate(codeEvaluation(stmts(SEE), scope(other)))).toMatchObject({ ok: true, value: seen(other) });
      const result = await one.evaluate(codeEvaluation(stmts(attack), scope(LIST)));
      wellFormed(result);
      // The engine's list did not change (it did not adopt the answer): each guest must still read exactly it.
      await new Promise((resolve) => setImmediate(resolve));
      expect(await one.evaluate(codeEvaluation(stmts(SEE), scope(LIST)))).toMatchObject({ ok: true, value: seen(LIST) });
      expect(await two.evaluate(codeEvaluation(stmts(SEE), scope(other)))).toMatchObject({ ok: true, value: seen(other) });
      const grown = LIST.concat({ role: 'user', content: 'next' });
      expect(await one.evaluate(codeEvaluation(stmts(SEE), scope(grown)))).toMatchObject({ ok: true, value: seen(grown) });
    });
  }

  it('a role that changes between its check and its copy never reaches the engine as anything but a role', async () => {
    const result = await one.evaluate(codeEvaluation(stmts(ATTACKS[0]![1]), scope(LIST)));
    // Refused (by the host's check of the answer), or kept with a role of the three.
    if (result.ok) for (const m of result.contexts?.a ?? []) expect(['system', 'user', 'assistant']).toContain(m.role);
    else expect(result.error).not.toContain('tool');
  });

  // The cause was: the guest's contexts module (src/workflow/sandbox/guest-modules.ts, changed() and addMessage) read a
  // message's role twice, once to check it and once to copy it, so a getter passed the check and answered 'tool' to
  // the copy; the host's check of the answer refused it as "the sandbox gave a malformed result", which read as a
  // fault of the sandbox, not of the code. Each field is now read once: the message is kept as it was checked.
  it('a message whose role getter answers differently is kept with the role it was checked with', async () => {
    const result = await one.evaluate(codeEvaluation(stmts(ATTACKS[0]![1]), scope(LIST)));
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.contexts?.a?.[1]).toEqual({ role: 'user', content: LIST[1]!.content });
  });
});
