import { afterAll, describe, expect, it } from 'vitest';
import type { Evaluation } from '../../../src/engine/evaluation.js';
import type { WorkflowPlan } from '../../../src/workflow/run/plan.js';
import { createSandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { hostTierCounts, runInTier } from '../../../src/workflow/sandbox/tier/run.js';
import { DEFAULT_LIMITS } from '../../../src/workflow/sandbox/program.js';
import { workflowDriver } from '../../helpers/workflow-driver.js';
import { expr, state, stmts, workflowPlan } from '../../helpers/workflow-plan.js';

const sandbox = createSandboxEvaluator();
afterAll(async () => {
  await sandbox.close();
});

const writer = { id: 'writer', context: 'c', role: 'assistant' as const, name: 'Writer', systemMessage: '', model: 'base', parsingTools: [], requestUserInput: false, tools: [], maxToolSteps: 20 };
/** work (an agent; after-code, code in its condition) -> next (entry code, an agent) -> done. */
function plan(after: string): WorkflowPlan {
  return workflowPlan({
    name: 'in_step',
    contexts: [{ name: 'c', starting: [], maxLength: 10_000 }],
    agents: [writer],
    states: [
      state({ name: 'work', agent: 'writer', after: stmts(after), transitions: [{ target: 'next', condition: expr('common_data.seen.length >= 1'), before: null }] }),
      state({ name: 'next', agent: 'writer', enter: stmts('this.common_data.entered = common_data.seen.length'), transitions: [{ target: 'done', condition: null, before: null }] }),
      state({ name: 'done', final: true }),
    ],
    start: 'work',
  });
}

/** Runs a driver to the end, the sandbox (QuickJS, no tier) answering what the steps leave: the session, and the evaluations it got. */
async function run(p: WorkflowPlan, tierInStep: boolean) {
  const w = workflowDriver(p, {}, { tierInStep });
  const sent: Evaluation[] = [];
  let effects = w.send({ type: 'start', brief: 'go' });
  for (let guard = 0; guard < 20 && w.state().status === 'running'; guard++) {
    const fx = effects.find((e) => e.type === 'evaluate' || e.type === 'call_agent');
    if (!fx) break;
    if (fx.type === 'evaluate') {
      sent.push(fx.evaluation);
      effects = w.send({ type: 'evaluated', id: fx.id, result: await sandbox.evaluate(fx.evaluation) });
    } else if (fx.type === 'call_agent') effects = w.send({ type: 'agent_replied', turnId: fx.call.turnId, text: 'a draft', toolCalls: [] });
  }
  return { w, sent };
}

describe('the host tier answers within the step that asks for it', () => {
  it("after-code, the condition and the next state's entry code settle in the step that took the agent's answer, with the sandbox's result", async () => {
    const p = plan('this.common_data.seen = [last_agent_response]; console.log("seen")');
    const inStep = await run(p, true);
    const sandboxed = await run(p, false);
    // No evaluation leaves the step; the same session either way (data, ids, the loop guard's count).
    expect(inStep.sent).toEqual([]);
    // The sandbox gets them as one job: the after-code, the condition and the entry code chained to it.
    expect(sandboxed.sent.map((e) => [e.purpose, e.next?.purpose, Object.keys(e.next?.targets ?? {})])).toEqual([['after', 'transitions', ['next']]]);
    expect(inStep.w.state().status).toBe('ended');
    expect(inStep.w.state().workflow).toEqual(sandboxed.w.state().workflow);
    expect(inStep.w.state().workflow!.frames[0]!.common_data).toEqual({ input: 'go', seen: ['a draft'], entered: 1 });
    expect(inStep.w.events.filter((e) => e.type === 'note')).toEqual(sandboxed.w.events.filter((e) => e.type === 'note'));
  });

  it('one step: the agent answer is followed by the next call, without an evaluate effect', () => {
    const w = workflowDriver(plan('this.common_data.seen = [1]'), {}, { tierInStep: true });
    w.send({ type: 'start', brief: 'go' });
    const effects = w.send({ type: 'agent_replied', turnId: w.call()!.call.turnId, text: 'x', toolCalls: [] });
    expect(effects.map((e) => e.type)).toEqual(['call_agent']);
    expect(w.state().configuration).toEqual(['next']);
    // Ids are taken as when each went to the sandbox: the after-code, the condition, the entry code.
    expect(w.state().workflow!.evalSeq).toBe(3);
  });

  it("whether the steps run the tier is each definition's own: a session built to leave code to its evaluator does not change how another runs", () => {
    const inStep = workflowDriver(plan('this.common_data.seen = [1]'), {}, { tierInStep: true });
    const sandboxed = workflowDriver(plan('this.common_data.seen = [1]'), {}, { tierInStep: false });
    expect([inStep.def.tierInStep, sandboxed.def.tierInStep]).toEqual([true, false]);
    for (const w of [inStep, sandboxed]) w.send({ type: 'start', brief: 'go' });
    const reply = (w: typeof inStep) => w.send({ type: 'agent_replied', turnId: w.call()!.call.turnId, text: 'x', toolCalls: [] }).map((e) => e.type);
    // Built second, the sandboxed one changed nothing for the first (a process-wide switch did).
    expect(reply(inStep)).toEqual(['call_agent']);
    expect(reply(sandboxed)).toEqual(['evaluate']);
  });

  it('code the tier gives up on goes out as the evaluate effect, as before, and the run ends as the sandbox runs it', async () => {
    // A regex literal: outside the tier's subset.
    const p = plan('this.common_data.seen = /a/.test(last_agent_response) ? ["a"] : []');
    expect(
      runInTier(
        {
          workflow: 'in_step',
          state: 'work',
          purpose: 'after',
          code: stmts('/a/.test("a")'),
          scope: { common_data: {}, input: null, contexts: {}, agents: {}, last_agent_response: null, last_tool_calls: [] },
        },
        null,
        DEFAULT_LIMITS,
      ),
    ).toBeNull();
    const inStep = await run(p, true);
    const sandboxed = await run(p, false);
    expect(inStep.sent.map((e) => e.purpose)).toEqual(['after']);
    expect(inStep.w.state().workflow).toEqual(sandboxed.w.state().workflow);
    expect(inStep.w.state().workflow!.frames[0]!.common_data).toMatchObject({ seen: ['a'], entered: 1 });
  });

  it("what the step gave up on (past the tier's budget), the evaluator does not run in the tier again: the thread is held once for it", async () => {
    const tiered = createSandboxEvaluator({ hostTier: true });
    try {
      const w = workflowDriver(plan('let n = 0; for (let i = 0; i < 300000; i++) n++; this.common_data.seen = [n]'), {}, { tierInStep: true });
      w.send({ type: 'start', brief: 'go' });
      const before = { ...hostTierCounts };
      w.send({ type: 'agent_replied', turnId: w.call()!.call.turnId, text: 'x', toolCalls: [] });
      const fx = w.evaluation()!;
      expect(fx.evaluation.purpose).toBe('after');
      // The step tried it (a give-up on the data: its code is not refused for later evaluations).
      expect(hostTierCounts.refused).toBe(before.refused);
      const result = await tiered.evaluate(fx.evaluation);
      expect(hostTierCounts.refused).toBe(before.refused + 1);
      expect(hostTierCounts.tier).toBe(before.tier);
      expect(result).toMatchObject({ ok: true, common_data: { seen: [300000] } });
      // A copy of it (what a resumed session sends) is tried again.
      expect(runInTier(structuredClone(fx.evaluation), null, DEFAULT_LIMITS)).toBeNull();
      expect(hostTierCounts.refused).toBe(before.refused + 1);
    } finally {
      await tiered.close();
    }
  });

  it('a step runs the tier once: a second evaluation that runs code in the same step goes out as an effect', async () => {
    // Code-only states: each one's entry code and its condition are two evaluations, both in the tier's subset.
    const chain = workflowPlan({
      name: 'code_only',
      states: [
        state({ name: 'a', enter: stmts('this.common_data.a = 1'), transitions: [{ target: 'b', condition: expr('common_data.a + 1 === 2'), before: null }] }),
        state({ name: 'b', enter: stmts('this.common_data.b = 2'), transitions: [{ target: 'end', condition: expr('common_data.b * 2 === 4'), before: null }] }),
        state({ name: 'end', final: true }),
      ],
      start: 'a',
    });
    const inStep = await run(chain, true);
    const sandboxed = await run(chain, false);
    // The sandbox: a's entry code; a's condition with b's entry code chained; b's condition.
    expect(sandboxed.sent.map((e) => e.purpose)).toEqual(['enter', 'transitions', 'transitions']);
    // The first step answers a's entry code itself and sends a's condition out; the step its result comes back in
    // takes b's entry code from it and answers b's condition itself.
    expect(inStep.sent.map((e) => `${e.state} ${e.purpose}`)).toEqual(['a transitions']);
    expect(inStep.w.state().workflow).toEqual(sandboxed.w.state().workflow);
    expect(inStep.w.state().status).toBe('ended');
  });
});
