import { afterAll, describe, expect, it } from 'vitest';
import type { Evaluation } from '../../../src/engine/evaluation.js';
import { decideInHost, mayDecideInHost } from '../../../src/workflow/sandbox/host-decision.js';
import { createSandboxEvaluator, SandboxPool } from '../../../src/workflow/sandbox/index.js';
import { expr, scopeOf } from './fixtures.js';

const pool = new SandboxPool({ size: 1 });
const sandbox = createSandboxEvaluator({ pool });
afterAll(async () => {
  await sandbox.close();
  await pool.close();
});
const value = (source: string): Evaluation => ({ workflow: 'wf', state: 's', purpose: 'input', scope: scopeOf(), code: expr(source) });

describe('number literals the host reads as JSON', () => {
  it.each([
    ['010', 8],
    ['08', 8],
    ['-007', -7],
  ])('%s (a leading zero: an octal or decimal literal in sloppy code) is left to the sandbox, which reads it as %s; the host used to throw', async (source, expected) => {
    expect(mayDecideInHost(value(source))).toBe(false);
    expect(decideInHost(value(source), scopeOf())).toBeNull();
    expect(await sandbox.evaluate(value(source))).toMatchObject({ ok: true, value: expected });
  });

  it.each(['0', '-0.5', '10', '3.25'])('%s is still decided in the host', (source) => {
    expect(decideInHost(value(source), scopeOf())).toMatchObject({ ok: true, value: Number(source) });
  });
});
