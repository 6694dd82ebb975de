// How long hostile workflow code holds the calling thread with inline jobs (opt-in: createSandboxEvaluator({ inline:
// true })): each program runs as a job in a warm inline context (1 MiB, 200,000 steps, 20 ms deadline), and the
// wall time of that one call is printed with where the answer came from (here, or left to the pool). The first
// group has loops (in callbacks, getters, Function, a regex's backtracking) that the step budget stops; the second
// has no loop statement, no function and tiny data, and holds the thread as long as one built-in call runs
// (README, "Where code runs": why no rule on the code's shape makes inline jobs safe by default).
// A context QuickJS fails to free (it prints "Aborted(Assertion failed: list_empty(&rt->gc_obj_list)..." after the
// deep JSON.stringify) makes the inline sandbox stop running jobs on this thread; each program here has its own.
// Run: node --import tsx bench/inline-hold.ts
import { performance } from 'node:perf_hooks';
import { InlineSandbox } from '../src/workflow/sandbox/inline-sandbox.js';
import { prepareEvaluation } from '../src/workflow/sandbox/prepare.js';
import { DEFAULT_LIMITS } from '../src/workflow/sandbox/program.js';
import type { Job } from '../src/workflow/sandbox/run-job.js';

const PROGRAMS: [string, string][] = [
  ['a loop in a callback', '[1, 2, 3].forEach(function () { for (;;); });'],
  ['a loop in a getter', 'return ({ get x() { for (;;); } }).x;'],
  ['a loop through Function', "Function('for (;;);')();"],
  ['regex backtracking /(a+)+$/ on 30 a and a b', "return /(a+)+$/.test('a'.repeat(30) + 'b');"],
  ["'x'.repeat past the memory", "return 'x'.repeat(4000000).length;"],
  ['sort of the largest array the memory allows', 'const a = Array.from({ length: 30000 }, (_, i) => ((i * 7919) % 30000) + 0.5); a.sort(); return a.length;'],
  ['JSON.stringify of a deep structure', 'let o = []; for (let i = 0; i < 5000; i++) o = [o]; return JSON.stringify(o).length;'],
  ['a sort loop (responsive.test.ts)', 'const a = Array.from({ length: 2000 }, (_, i) => (i * 7919) % 2000); for (;;) a.slice().sort();'],
  ['no loop: indexOf over an array-like of length 3e7', 'return Array.prototype.indexOf.call({ length: 3e7 }, 0);'],
  ['no loop, no call: the same through valueOf', 'return ({ valueOf: [].indexOf, length: 3e7 }) + 1;'],
  ['no loop: a string search, 100,000 in 200,000 characters', "const s = 'a'.repeat(200000); return s.indexOf('a'.repeat(100000) + 'b');"],
  ['no loop: one BigInt multiplication', 'const x = 7n ** 100000n; return String((x * x) % 10n);'],
];

function jobOf(name: string, source: string): Job {
  const scope = { common_data: {}, input: null, contexts: {}, agents: {}, last_agent_response: null, last_tool_calls: [] };
  const prepared = prepareEvaluation({ workflow: 'wf', state: 's', purpose: 'enter', code: { kind: 'statements', source }, scope }, null, DEFAULT_LIMITS);
  if (!prepared.ok) throw new Error(prepared.error);
  return { session: name, parts: prepared.job.parts, scope: JSON.stringify(scope), script: null, limits: DEFAULT_LIMITS };
}

for (const [name, source] of PROGRAMS) {
  const inline = new InlineSandbox();
  await inline.ready();
  const job = jobOf(name, source);
  // The session's first job goes to the pool and has its context made ahead of the next.
  inline.run(job);
  await new Promise((resolve) => setImmediate(resolve));
  const t0 = performance.now();
  const answer = inline.run(job);
  const held = performance.now() - t0;
  const where = answer === null ? 'left to the pool' : `answered here: ${answer.slice(0, 60)}`;
  process.stdout.write(`${name.padEnd(58)} held the thread ${held.toFixed(1).padStart(9)} ms, ${where}\n`);
  inline.release(name);
}
