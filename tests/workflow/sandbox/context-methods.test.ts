import { beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../../src/engine/evaluation.js';
import type { SandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { codeEvaluation, expr, PLACEMENTS, sandboxSessions, scopeOf, stmts, succeededValue } from './fixtures.js';

// A context's methods (addMessage, getMessages, ...) and its messages accessor are made once per guest context and
// shared by every context object of every part and job, as a class's methods are: they are frozen, so nothing code
// does to them reaches the next part or job, and they work only on a context.
const SCOPE = scopeOf({ contexts: { c: [{ role: 'user', content: 'hi' }] }, context_limits: { c: 1000 } } as Partial<Scope>);

const ATTACK = `
const c = this.contexts.get('c'), proto = Object.getPrototypeOf(c), lazy = Object.getOwnPropertyDescriptor(c, 'messages');
const tries = [
  () => { c.addMessage.leak = 'evil'; },
  () => { proto.evil = 'evil'; },
  () => { proto.getName = () => 'evil'; },
  () => { Object.defineProperty(proto, 'hasMessages', { value: () => 'evil' }); },
  () => { lazy.get.leak = 'evil'; },
  () => { c.getMessages.prototype.leak = 'evil'; },
  () => { Object.setPrototypeOf(proto, { evil: 'evil' }); },
];
for (const t of tries) { try { t(); } catch (e) { /* refused: frozen */ } }
`;
const PROBE = `
return [c.addMessage.leak, proto.evil, c.getName(), c.hasMessages(), lazy.get.leak, c.getMessages.prototype && c.getMessages.prototype.leak, c.evil, c.messages.length];`;
const CLEAN = [null, null, 'c', true, null, null, null, 1];

describe.each(PLACEMENTS)('context methods shared between parts and jobs, $placement', ({ inline }) => {
  const sessions = sandboxSessions(inline, [''], codeEvaluation(expr('1'), SCOPE, 'input'), 2);
  let session: SandboxEvaluator;
  beforeAll(() => {
    [session] = sessions() as [SandboxEvaluator];
  });

  it('what code does to them is refused (in its own job too) and never reaches the next job', async () => {
    const probe = async (source: string) => ((await succeededValue(session.evaluate(codeEvaluation(stmts(source), SCOPE, 'input')))) as unknown[]).map((v) => v ?? null);
    const alone = "const c = this.contexts.get('c'), proto = Object.getPrototypeOf(c), lazy = Object.getOwnPropertyDescriptor(c, 'messages');";
    expect(await probe(alone + PROBE)).toEqual(CLEAN);
    expect(await probe(ATTACK + PROBE)).toEqual(CLEAN);
    expect(await probe(alone + PROBE)).toEqual(CLEAN);
  });

  it('called on anything but a context, they fail with a clear error', async () => {
    const r = await session.evaluate(codeEvaluation(stmts("const c = this.contexts.get('c'); c.addMessage.call({}, { role: 'user', content: 'x' });"), SCOPE));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/not a context/);
  });

  it('two contexts of one part keep their own messages and names', async () => {
    const two = scopeOf({ contexts: { a: [{ role: 'user', content: 'A' }], b: [] }, context_limits: { a: 1000, b: 1000 } } as Partial<Scope>);
    const r = await session.evaluate(
      codeEvaluation(
        stmts(
          "const a = this.contexts.get('a'), b = this.contexts.get('b'); b.addMessage({ role: 'user', content: 'B' }); return [a.getName(), b.getName(), a.getMessages().length, b.getLastMessage().content, b.hasMessages()];",
        ),
        two,
      ),
    );
    expect(r).toMatchObject({ ok: true, value: ['a', 'b', 1, 'B', true], appended: { b: [{ role: 'user', content: 'B' }] } });
  });
});
