import { newQuickJSWASMModule } from 'quickjs-emscripten';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Evaluation, EvaluationResult } from '../../../src/engine/evaluation.js';
import { closeGuestContext, openGuestContext } from '../../../src/workflow/sandbox/guest-context.js';
import { DEFAULT_LIMITS, type SandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { prepareEvaluation } from '../../../src/workflow/sandbox/prepare.js';
import { runJob, type Job } from '../../../src/workflow/sandbox/run-job.js';
import { pruneScope } from '../../../src/workflow/sandbox/scope-reads.js';
import { loadScriptModule } from '../../../src/workflow/sandbox/script-module.js';
import { runsOnce } from '../../../src/workflow/sandbox/script-once.js';
import { codeEvaluation, handler, PLACEMENTS, sandboxSessions, scopeOf, SEED_001_SCRIPT } from './fixtures.js';

// A script.js whose top level runs once per context (runsOnce): its handlers attack what the context keeps of
// it (its functions, reached through this, arguments.callee and their prototypes; built-ins; globals; a
// const), and the probe after each must find everything as the first evaluation did.
const ONCE = `
const LIMIT = 3;
export function helper() { return 'clean'; }
export function onFunction() { this.helper.evil = 1; this.helper.prototype.evil = 2; }
export function onDefine() { Object.defineProperty(this.helper, 'hidden', { value: 1 }); }
export function onCallee() { arguments.callee.evil = 1; arguments.callee.prototype.evil = 2; }
export function onPrototype() { Object.prototype.polluted = 1; Function.prototype.evil = 1; }
export function onGlobal() { globalThis.stash = 1; stashed = 2; }
export function onConst() { LIMIT = 4; }
export function onMethod() { this.viaDefault.evil = 1; }
export function probe() {
  return [typeof this.helper.evil, typeof this.helper.prototype.evil, typeof this.helper.hidden, typeof this.onCallee.evil, typeof this.onCallee.prototype.evil,
    typeof ({}).polluted, typeof Function.prototype.evil, typeof globalThis.stash, typeof stashed, LIMIT, helper(), typeof this.viaDefault.evil, this.viaDefault()];
}
export function frozen() { return Object.isFrozen(this.helper) && Object.isFrozen(this.helper.prototype); }
export default { viaDefault() { return helper(); } };
`;
// Scripts the fast path refuses (they could keep state): they still run afresh each time.
const AFRESH = `
let calls = 0;
const state = { n: 0 };
export function helper() { return 'clean'; }
export function count() { calls += 1; state.n += 1; return [calls, state.n]; }
export function onBinding() { helper = function () { return 'evil'; }; }
export function probe() { return helper(); }
export function frozen() { return Object.isFrozen(this.helper); }
`;
const CLEAN = ['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined', 3, 'clean', 'undefined', 'clean'];

const onceOf = (script: string) => {
  const module = loadScriptModule(script);
  return module.ok && runsOnce(module.source);
};

describe.each(PLACEMENTS)('script.js run once per context: nothing a handler does carries over, $placement', ({ inline }) => {
  const sessions = sandboxSessions(inline, [ONCE, AFRESH], codeEvaluation(handler('helper'), scopeOf(), 'decide'), 10);
  let once: SandboxEvaluator;
  let afresh: SandboxEvaluator;
  beforeAll(() => {
    expect(onceOf(ONCE)).toBe(true);
    expect(onceOf(AFRESH)).toBe(false);
    [once, afresh] = sessions() as [SandboxEvaluator, SandboxEvaluator];
  });

  const call = (on: SandboxEvaluator, name: string): Promise<EvaluationResult> => on.evaluate(codeEvaluation(handler(name), scopeOf(), 'decide'));
  const value = async (on: SandboxEvaluator, name: string): Promise<unknown> => {
    const result = await call(on, name);
    if (!result.ok) throw new Error(result.error);
    return result.value;
  };

  it('the fast path is taken: the functions the context keeps are frozen (afresh, they are new each time)', async () => {
    expect(await value(once, 'frozen')).toBe(true);
    expect(await value(afresh, 'frozen')).toBe(false);
  });

  it.each(['onFunction', 'onCallee', 'onPrototype', 'onGlobal', 'onMethod'])('%s, then the probe finds nothing of it', async (attack) => {
    const ranHere = inline ? inline.counts.inline : 0;
    expect(await call(once, attack)).toMatchObject({ ok: true });
    expect(await value(once, 'probe')).toEqual(CLEAN);
    // Attack and probe met the same context (on the calling thread, it is counted).
    if (inline) expect(inline.counts.inline - ranHere).toBe(2);
  });

  it.each(['onConst', 'onDefine'])('%s fails (a const cannot change, a frozen function takes no new property), and the next evaluation finds nothing of it', async (attack) => {
    expect(await call(once, attack)).toMatchObject({ ok: false, error: expect.stringMatching(/TypeError/) });
    expect(await value(once, 'probe')).toEqual(CLEAN);
  });

  it('a script that reassigns a function or keeps counters runs afresh: nothing carries over', async () => {
    expect(await value(afresh, 'count')).toEqual([1, 1]);
    expect(await value(afresh, 'count')).toEqual([1, 1]);
    expect(await call(afresh, 'onBinding')).toMatchObject({ ok: true });
    expect(await value(afresh, 'probe')).toBe('clean');
  });
});

describe('a job gives the same answer whether script.js runs once or afresh', () => {
  it("seed 001's handlers, evaluation after evaluation in one context each way", async () => {
    expect(onceOf(SEED_001_SCRIPT)).toBe(true);
    const module = await newQuickJSWASMModule();
    const contexts = { once: openGuestContext(module, DEFAULT_LIMITS), afresh: openGuestContext(module, DEFAULT_LIMITS) };
    const evaluations: Evaluation[] = [
      codeEvaluation(handler('initializeWorkflow'), scopeOf({ common_data: { task_description: 'build it' } })),
      codeEvaluation(handler('prepareAnalysis'), scopeOf({ common_data: { iteration_count: 0 }, contexts: { analysis_context: [] } })),
      codeEvaluation(handler('processAnalysis'), scopeOf({ last_agent_response: 'a complex thing\nrequirement: fast\nwe need tests' })),
      codeEvaluation(handler('decideNextStep'), scopeOf({ common_data: { analysis_result: { complexity: 'medium', requirements: [] } } }), 'decide'),
      codeEvaluation(handler('handleWorkflowError'), scopeOf({ common_data: { error_count: 3 }, last_error: { state: 's', message: 'boom' } } as never), 'error'),
      codeEvaluation(handler('processAnalysis'), scopeOf({ last_agent_response: 'simple' })),
    ];
    const answers: Record<keyof typeof contexts, string[]> = { once: [], afresh: [] };
    for (const evaluation of [...evaluations, ...evaluations]) {
      const prepared = prepareEvaluation(evaluation, SEED_001_SCRIPT, DEFAULT_LIMITS);
      if (!prepared.ok) throw new Error(prepared.error);
      const { parts, script, reads } = prepared.job;
      expect(parts.every((p) => (JSON.parse(p.program) as { script: { once: boolean } }).script.once)).toBe(true);
      const scope = JSON.stringify(pruneScope(evaluation.scope, reads));
      for (const way of ['once', 'afresh'] as const) {
        const job: Job = {
          session: way,
          parts: way === 'once' ? parts : parts.map((p) => ({ ...p, program: p.program.replace('"once":true', '"once":false') })),
          scope,
          script,
          limits: DEFAULT_LIMITS,
        };
        answers[way].push(runJob(job, contexts[way]).result);
      }
    }
    expect(answers.once).toEqual(answers.afresh);
    expect(answers.once.every((a) => a.startsWith('{"ok":true'))).toBe(true);
    for (const guest of Object.values(contexts)) closeGuestContext(guest);
  });
});
