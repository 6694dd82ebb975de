import { afterAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../../src/engine/evaluation.js';
import { decideInHost, mayDecideInHost } from '../../../src/workflow/sandbox/host-decision.js';
import { createSandboxEvaluator, SandboxPool } from '../../../src/workflow/sandbox/index.js';
import { codeEvaluation, expr, scopeOf, transitionsEvaluation } from './fixtures.js';

// A path compared with a literal (SynthDev's `last_agent_response !== 'done'`) is decided in the host, with
// the answer the sandbox gives on the same data; anything the host cannot read as plain data stays a job.
const pool = new SandboxPool({ size: 1 });
const sandbox = createSandboxEvaluator({ pool });
afterAll(async () => {
  await sandbox.close();
  await pool.close();
});

const SCOPES: Scope[] = [
  scopeOf({ last_agent_response: 'done', common_data: { n: 3, s: 'x', f: false, z: null, o: { k: 'v' }, e: '' }, input: 'in' }),
  scopeOf({ last_agent_response: 'again', common_data: { n: 0, s: 'done', f: true, o: { k: 3 } }, input: 'done' }),
  scopeOf({ last_agent_response: null, common_data: {} }),
];
const DECIDED = [
  "last_agent_response !== 'done'",
  "last_agent_response === 'done'",
  "'done' === last_agent_response",
  'this.last_agent_response !== "again"',
  'common_data.n === 3',
  'variables.n !== 0',
  'common_data.s === "done";',
  'common_data.f === false',
  'common_data.z === null',
  'common_data.missing === null',
  'common_data.o.k === "v"',
  'common_data.o.k === 3',
  'common_data.s.length === 1',
  'common_data.e === ""',
  "input === 'done'",
  '-0 === common_data.n',
  "last_agent_response === 'a === b'",
];

describe('a path compared with a literal', () => {
  it.each(DECIDED)('%s: decided in the host, as the sandbox decides it, on every scope whose data it can read', async (source) => {
    const asked = transitionsEvaluation([
      { condition: expr(source), before: null },
      { condition: null, before: null },
    ]);
    expect(mayDecideInHost(asked)).toBe(true);
    let decided = 0;
    for (const scope of SCOPES) {
      const host = decideInHost(asked, scope);
      const guest = await sandbox.evaluate({ ...asked, scope });
      // A read through a missing object (common_data.o.k on {}) throws in the sandbox: left to it.
      if (host === null) expect(guest).toMatchObject({ ok: false });
      else expect(guest).toMatchObject({ ok: true, value: host.ok ? host.value : 'not ok' });
      if (host) decided += 1;
    }
    expect(decided).toBeGreaterThanOrEqual(2);
  });

  it.each([
    // An object or array compared (identity in the sandbox), a read past a string, an inherited name, the workflow's String input,
    // loose equality, a literal that holds the operator, two comparisons, a control character JSON refuses.
    'common_data.o === null',
    'common_data.s.x.y === 1',
    'common_data.toString === 1',
    "this.input === 'in'",
    "last_agent_response == 'done'",
    "'a' === 'b' === last_agent_response",
    "last_agent_response === 'done' === true",
    'last_agent_response === "a\tb"',
    'last_agent_response === other',
    "last_agent_response !== 'done' && true",
  ])('%s: left to the sandbox (or to the data), and the sandbox answers it', async (source) => {
    const asked = codeEvaluation(expr(source), SCOPES[0], 'input');
    const host = decideInHost(asked, SCOPES[0]!);
    const guest = await sandbox.evaluate(asked);
    // Where the host does decide (a form it knows, data it can read), it says what the sandbox says.
    if (host) expect(guest).toMatchObject({ ok: true, value: host.ok ? host.value : 'not ok' });
    else expect(guest.ok === false || 'value' in guest).toBe(true);
  });

  it('an object on the path leaves the decision to the sandbox', () => {
    const asked = transitionsEvaluation([{ condition: expr('common_data.o === null'), before: null }]);
    expect(decideInHost(asked, SCOPES[0]!)).toBeNull();
  });
});
