import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Evaluation, EvaluationResult, Scope } from '../../../src/engine/evaluation.js';
import { createSandboxEvaluator, DEFAULT_LIMITS, SandboxPool } from '../../../src/workflow/sandbox/index.js';
import { runInTier } from '../../../src/workflow/sandbox/tier/run.js';
import { corpusPlan, corpusWorkflows, recordRun, scriptsOf } from './tier-corpus.js';

// Every piece of workflow code in the corpus (troupe's workflows/, the test fixtures, SynthDev's bookshop_visit and
// its own grocery_store_test) as a session on the demo model asks for it, with the scope it had, and with that
// scope varied (tool-call verdicts flipped, arguments that are not JSON, counters moved on, no tool calls): the
// host tier's result, wherever it gives one, must be the QuickJS sandbox's, whole (value, common_data, logs,
// appended messages, chained results).

type Recorded = { workflow: string; evaluation: Evaluation; script: string | null };

const pool = new SandboxPool({ size: 1 });
const recorded: Recorded[] = [];

beforeAll(async () => {
  for (const w of corpusWorkflows()) {
    const plan = corpusPlan(w);
    const scriptFor = scriptsOf(plan);
    const sandbox = createSandboxEvaluator({ pool, scriptFor });
    for (const { evaluation } of await recordRun(plan, sandbox)) recorded.push({ workflow: w.file, evaluation, script: scriptFor(evaluation.workflow) });
    await sandbox.close();
  }
}, 240_000);
afterAll(() => pool.close());

// A tool call's arguments (data or JSON text) with every boolean flipped, or replaced by text that is not JSON.
function flipped(args: unknown): unknown {
  if (typeof args === 'string') {
    try {
      return JSON.stringify(flipped(JSON.parse(args)));
    } catch {
      return args;
    }
  }
  if (typeof args === 'boolean') return !args;
  if (Array.isArray(args)) return args.map(flipped);
  if (args !== null && typeof args === 'object') return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, flipped(v)]));
  return args;
}

function withCalls(scope: Scope, change: (args: unknown) => unknown, drop = false): Scope {
  const calls = (list: { name: string; arguments: unknown }[]) => (drop ? [] : list.map((c) => ({ ...c, arguments: change(c.arguments) })));
  return {
    ...scope,
    last_tool_calls: calls(scope.last_tool_calls),
    agents: Object.fromEntries(
      Object.entries(scope.agents).map(([role, a]) => [
        role,
        { ...a, toolCalls: calls(a.toolCalls), ...(a.raw ? { raw: { ...a.raw, tool_calls: drop ? [] : a.raw.tool_calls.map((c) => ({ ...c, arguments: String(change(c.arguments)) })) } } : {}) },
      ]),
    ),
    ...(scope.last_response
      ? { last_response: { ...scope.last_response, tool_calls: drop ? [] : scope.last_response.tool_calls.map((c) => ({ ...c, arguments: String(change(c.arguments)) })) } }
      : {}),
  };
}

function movedOn(scope: Scope): Scope {
  const bump = (v: unknown): unknown => (typeof v === 'number' ? v + 10 : v);
  return { ...scope, last_agent_response: 'done', common_data: Object.fromEntries(Object.entries(scope.common_data).map(([k, v]) => [k, bump(v)])) };
}

const VARIANTS: [string, (s: Scope) => Scope][] = [
  ['as recorded', (s) => s],
  ['tool-call verdicts flipped', (s) => withCalls(s, flipped)],
  ['tool-call arguments that are not JSON', (s) => withCalls(s, (a) => (typeof a === 'string' ? '{not json' : a))],
  ['counters moved on, the last answer "done"', movedOn],
  ['no tool calls', (s) => withCalls(s, (a) => a, true)],
];

describe('the host tier against the QuickJS sandbox, on the corpus', () => {
  it('records the corpus (every workflow asks for code)', () => {
    expect(new Set(recorded.map((r) => r.workflow)).size).toBeGreaterThanOrEqual(13);
    expect(recorded.length).toBeGreaterThan(60);
  });

  it.each(VARIANTS)(
    'scopes %s: every result the tier gives is the sandbox result',
    async (_name, vary) => {
      const sandbox = createSandboxEvaluator({ pool, scriptFor: (name) => recorded.find((r) => r.evaluation.workflow === name)?.script ?? null });
      let decided = 0;
      const mismatches: string[] = [];
      for (const r of recorded) {
        const evaluation = { ...r.evaluation, scope: vary(structuredClone(r.evaluation.scope)) };
        const before = structuredClone(evaluation);
        const tier = runInTier(evaluation, r.script, DEFAULT_LIMITS);
        // The tier works on copies: the evaluation it was given is as it was.
        expect(evaluation).toEqual(before);
        const guest: EvaluationResult = await sandbox.evaluate(evaluation);
        if (tier === null) continue;
        decided += 1;
        if (JSON.stringify(tier) !== JSON.stringify(guest) || !isEqual(tier, guest))
          mismatches.push(`${r.workflow} ${evaluation.state} ${evaluation.purpose}:\n tier    ${JSON.stringify(tier)}\n sandbox ${JSON.stringify(guest)}`);
      }
      await sandbox.close();
      expect(mismatches).toEqual([]);
      // Most of the corpus is in the tier's subset: it is no tier that decides nothing.
      expect(decided).toBeGreaterThan(recorded.length * 0.9);
    },
    240_000,
  );
});

function isEqual(a: unknown, b: unknown): boolean {
  try {
    expect(a).toEqual(b);
    return true;
  } catch {
    return false;
  }
}
