import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { Evaluation } from '../../../src/engine/evaluation.js';
import { createSandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { codeEvaluation, errorOf, expr, handler, scopeOf, stmts } from './fixtures.js';

describe('the sandbox evaluator over its life', () => {
  const sandbox = createSandboxEvaluator({ memoryBytes: 8 * 1024 * 1024 });
  afterAll(() => sandbox.close());

  it('evaluations asked for together (parallel branches) each start from a clean context and answer in order', async () => {
    const asks = Array.from({ length: 12 }, (_, i) =>
      sandbox.evaluate(codeEvaluation(stmts(`globalThis.count = (globalThis.count || 0) + 1; this.common_data.i = ${i}; return globalThis.count;`), scopeOf({ common_data: { i: -1 } }))),
    );
    const results = await Promise.all(asks);
    expect(results).toEqual(Array.from({ length: 12 }, (_, i) => ({ ok: true, value: 1, common_data: { i } })));
  });

  it('an abort while the code runs cancels it (the worker is replaced) and the next evaluation works', async () => {
    const controller = new AbortController();
    const running = sandbox.evaluate(codeEvaluation(stmts("'a'.repeat(2e6).indexOf('a'.repeat(1e5) + 'b')")), controller.signal);
    // Aborted from a later task, while the worker is busy with the code.
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect(await running).toEqual({ ok: false, error: 'cancelled' });
    expect(await sandbox.evaluate(codeEvaluation(expr('1 + 1'), scopeOf(), 'input'))).toMatchObject({ ok: true, value: 2 });
  });

  it('an abort while waiting its turn leaves the queue; one aborted before asking never runs', async () => {
    const controller = new AbortController();
    const first = sandbox.evaluate(codeEvaluation(stmts('this.common_data.first = true')));
    const second = sandbox.evaluate(codeEvaluation(stmts('this.common_data.second = true')), controller.signal);
    controller.abort();
    expect(await second).toEqual({ ok: false, error: 'cancelled' });
    expect(await first).toMatchObject({ ok: true, common_data: { first: true } });
    expect(await sandbox.evaluate(codeEvaluation(expr('1')), AbortSignal.abort())).toEqual({ ok: false, error: 'cancelled' });
  });

  it('malformed evaluations get an error, never a throw', async () => {
    // Code that needs the sandbox (a literal is decided without it, scope unread).
    const base = codeEvaluation(expr('1 + 1'));
    const broken: Evaluation[] = [
      { ...base, code: undefined },
      { ...base, purpose: 'transitions', code: undefined },
      { ...base, purpose: 'sub_input', code: undefined },
      { ...base, scope: { ...base.scope, common_data: { big: 10n } as Record<string, unknown> } },
      { ...base, scope: { ...base.scope, common_data: { f: () => 1 } as Record<string, unknown> } },
    ];
    const errors = await Promise.all(broken.map(async (e) => errorOf(await sandbox.evaluate(e))));
    expect(errors[0]).toBe('a enter evaluation came without code');
    expect(errors[1]).toBe('a transitions evaluation came without transitions');
    expect(errors[2]).toBe('a sub_input evaluation came without fields');
    expect(errors[3]).toBe('the scope is not JSON: TypeError: Do not know how to serialize a BigInt');
    expect(errors[4]).toBe('the scope is not JSON: TypeError: a function is not data');
  });

  it('a scriptFor that throws is reported, not thrown', async () => {
    const reading = createSandboxEvaluator({
      scriptFor: () => {
        throw new Error('EACCES: script.js');
      },
    });
    try {
      expect(errorOf(await reading.evaluate(codeEvaluation(handler('a'), scopeOf(), 'decide')))).toBe('could not read script.js of workflow wf: EACCES: script.js');
    } finally {
      await reading.close();
    }
  });

  it('close cancels what waits and refuses what comes after', async () => {
    const closing = createSandboxEvaluator();
    const running = closing.evaluate(codeEvaluation(stmts('for (;;) {}')));
    const waiting = closing.evaluate(codeEvaluation(expr('1')));
    await closing.close();
    expect(await running).toEqual({ ok: false, error: 'cancelled' });
    expect(await waiting).toEqual({ ok: false, error: 'cancelled' });
    expect(await closing.evaluate(codeEvaluation(expr('1')))).toEqual({ ok: false, error: 'the sandbox is closed' });
  });

  it('a limit that makes no sense is refused when the sandbox is made', () => {
    expect(() => createSandboxEvaluator({ maxSteps: -1 })).toThrow('sandbox option maxSteps: Too small: expected number to be >=10000');
    expect(() => createSandboxEvaluator({ backstopMs: 0 })).toThrow('sandbox option backstopMs: Too small: expected number to be >0');
    expect(() => createSandboxEvaluator({ memoryBytes: 1000 })).toThrow(/^sandbox option memoryBytes: /);
  });

  it('an idle sandbox never keeps the process alive', async () => {
    const script = fileURLToPath(new URL('./fixtures/idle-exit.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { timeout: 15_000 });
    expect(JSON.parse(stdout)).toEqual({ ok: true, value: 2, common_data: { n: 1 } });
  });
});
