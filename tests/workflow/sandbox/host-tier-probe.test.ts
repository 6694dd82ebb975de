import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Evaluation, Scope } from '../../../src/engine/evaluation.js';
import { createSandboxEvaluator, DEFAULT_LIMITS, SandboxPool } from '../../../src/workflow/sandbox/index.js';
import { decideInHost } from '../../../src/workflow/sandbox/host-decision.js';
import { hostTierCounts, runInTier } from '../../../src/workflow/sandbox/tier/run.js';
import { expr, stmts } from './fixtures.js';

// Found by probing the host tier as a hostile workflow's author would: code whose outcome the tier got wrong
// (the sandbox's answer differed), and code that held the host's thread for a minute within the step budget
// (each step a built-in walking a megabyte). Each piece is kept as it was written.

const scope = (): Scope => ({
  common_data: { n: 1, list: [1, 2, 3], s: 'abc', o: { k: 'v' } },
  input: null,
  contexts: { c: [] },
  agents: {},
  last_agent_response: 'answer',
  last_tool_calls: [],
});
const evaluationOf = (source: string): Evaluation => ({ workflow: 'wf', state: 's', purpose: 'enter', code: stmts(source), scope: scope() });

// Where JavaScript's order of evaluation or its `this` is subtle: the tier answered otherwise than QuickJS.
const DIFFERENTIAL = [
  // A compound assignment or ++ evaluates its target's object and key once, before the right side.
  'let a = [0, 0, 0]; let i = 0; a[i++] += 5; return [a, i];',
  'let a = [0, 0, 0]; let i = 0; a[i++]++; return [a, i];',
  'let a = [0, 0, 0]; let i = 0; --a[i++]; return [a, i];',
  'const log = []; const at = (k) => { log.push(k); return k; }; const o = { x: 1 }; o[at("x")] -= 1; return [o, log];',
  // A plain assignment evaluates its target's object and key before the value.
  'let a = [0, 0, 0]; let i = 0; a[i] = i++ + 5; return [a, i];',
  'let o = {}; const p = o; o.x = (o = { y: 1 }).y; return [p, o];',
  'const log = []; const o = {}; o[log.push("key") ? "k" : "k"] = log.push("value"); return log;',
  // Sloppy code boxes a primitive `this`: typeof this is 'object'.
  'function f() { return typeof this; } return f.call(5);',
  "function f() { return typeof this; } return f.call('x');",
  'function f() { return this === true; } return f.call(true);',
];

// Each step a built-in walking a megabyte (or a big array, or a big object): within the step budget, a minute of the host's thread.
const COSTLY = [
  "const s = 'a'.repeat(1048000); const p = 'a'.repeat(3000) + 'b'; let n = 0; for (let i = 0; i < 1000; i++) if (s.includes(p)) n++; return n;",
  "const s = 'a'.repeat(1048000); let n = 0; for (let i = 0; i < 2000; i++) n += s.indexOf('b'); return n;",
  "const s = 'a'.repeat(1048000); let n = 0; for (let i = 0; i < 2000; i++) n += s.split('b').length; return n;",
  "const s = 'a'.repeat(1048000); let n = 0; for (let i = 0; i < 2000; i++) n += s.toUpperCase().length; return n;",
  "let n = 0; for (let i = 0; i < 2000; i++) n += 'x'.repeat(1048000).length; return n;",
  "const t = 'a'.repeat(1048000); const u = 'a'.repeat(1048000); let n = 0; for (let i = 0; i < 2000; i++) if (t === u + '') n++; return n;",
  "const text = JSON.stringify('x'.repeat(1000000)); let n = 0; for (let i = 0; i < 2000; i++) n += JSON.parse(text).length; return n;",
  "const text = '[' + '0,'.repeat(90000) + '0]'; const a = JSON.parse(text); let n = 0; for (let i = 0; i < 3000; i++) n += a.slice(1).length; return n;",
  "const text = '[' + '0,'.repeat(90000) + '0]'; const a = JSON.parse(text); let n = 0; for (let i = 0; i < 3000; i++) n += a.indexOf(1); return n;",
  "const text = '[' + '0,'.repeat(90000) + '0]'; const a = JSON.parse(text); let n = 0; for (let i = 0; i < 3000; i++) n += JSON.stringify(a).length; return n;",
  "const text = '[' + '0,'.repeat(90000) + '0]'; const a = JSON.parse(text); let n = 0; for (let i = 0; i < 3000; i++) n += Object.keys(a).length; return n;",
  "const big = 'x'.repeat(1048000); let n = 0; for (let i = 0; i < 2000; i++) { console.log(big); n++; } return n;",
  // A concatenation is a rope: the first read of a character copies it whole.
  "const big = 'y'.repeat(1048000); let n = 0; for (let i = 0; i < 2000; i++) if ((big + i)[5] === 'y') n++; return n;",
  "const big = 'y'.repeat(1048000); let n = 0; for (let i = 0; i < 2000; i++) n += `${big}${i}`.charAt(3).length; return n;",
  "const text = '[' + '0,'.repeat(90000) + '0]'; const a = JSON.parse(text); for (let i = 0; i < 3000; i++) console.log(a); return 1;",
  "const big = 'y'.repeat(1048000); for (let i = 0; i < 2000; i++) getContext('c').addMessage({ role: 'user', content: big }); return 1;",
];

// A megabyte string shared 32,768 times (15 doublings by concat), kept or written out: V8 filled the host's heap
// (4 GB) writing its JSON and the process died. Run in a child with a small heap, so the test fails, not the runner.
const HEAP_BOMBS = [
  "const big = 'y'.repeat(1048000); let a = [big]; for (let i = 0; i < 15; i++) a = a.concat(a); this.common_data.a = a; return 1;",
  "const big = 'y'.repeat(1048000); let a = [big]; for (let i = 0; i < 15; i++) a = a.concat(a); return JSON.stringify(a).length;",
  "const big = 'y'.repeat(1048000); let a = [big]; for (let i = 0; i < 15; i++) a = a.concat(a); console.log(a); return 1;",
  "const big = 'y'.repeat(1048000); let a = [big]; for (let i = 0; i < 15; i++) a = a.concat(a); return a;",
];
const RUN_TIER = fileURLToPath(new URL('../../../src/workflow/sandbox/tier/run.ts', import.meta.url));
const PROGRAM = fileURLToPath(new URL('../../../src/workflow/sandbox/program.ts', import.meta.url));

const pool = new SandboxPool({ size: 1 });
const sandbox = createSandboxEvaluator({ pool, scriptFor: () => null });
afterAll(async () => {
  await sandbox.close();
  await pool.close();
});

describe('the host tier where probing found it wrong', () => {
  it.each(DIFFERENTIAL)('`%s`: the tier gives the sandbox result, or gives up', async (source) => {
    const evaluation = evaluationOf(source);
    const tier = runInTier(evaluation, null, DEFAULT_LIMITS);
    const guest = await sandbox.evaluate(evaluation);
    expect(guest.ok).toBe(true);
    if (tier !== null) expect(tier).toEqual(guest);
  });

  it.each(COSTLY)('`%s`: the built-ins work counts against the step budget (the tier gives up early)', (source) => {
    expect(runInTier(evaluationOf(source), null, DEFAULT_LIMITS)).toBeNull();
    expect(hostTierCounts.lastBail).toBe('step budget');
  });

  it.each(HEAP_BOMBS)('`%s`: the tier gives up without writing it out (a child with a 300 MB heap lives)', (source) => {
    const child = `
      const { runInTier, hostTierCounts } = await import(${JSON.stringify(RUN_TIER)});
      const { DEFAULT_LIMITS } = await import(${JSON.stringify(PROGRAM)});
      const evaluation = ${JSON.stringify(evaluationOf(source))};
      const result = runInTier(evaluation, null, DEFAULT_LIMITS);
      process.stdout.write(JSON.stringify({ result, why: hostTierCounts.lastBail }));`;
    const out = execFileSync(process.execPath, ['--max-old-space-size=300', '--import', 'tsx', '--input-type=module', '-e', child], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    expect(JSON.parse(out)).toEqual({ result: null, why: expect.stringMatching(/over the cap|too large/) });
  });

  it('an expression nested deeper than the host stack walks is left to the sandbox: the engine step deciding it in the host does not throw', () => {
    const deep = expr(`common_data.n${'.n'.repeat(20_000)}`);
    expect(decideInHost({ purpose: 'enter', code: deep }, scope())).toBeNull();
    expect(runInTier({ workflow: 'wf', state: 's', purpose: 'enter', code: deep, scope: scope() }, null, DEFAULT_LIMITS)).toBeNull();
  });
});
