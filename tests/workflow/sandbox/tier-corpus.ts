import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Evaluation, EvaluationResult } from '../../../src/engine/evaluation.js';
import type { Evaluator } from '../../../src/kernel/effect-runner.js';
import { DemoModel } from '../../../src/llm/demo-model.js';
import { loadWorkflowPlan } from '../../../src/session/run-workflow.js';
import { openSession } from '../../../src/session/open-session.js';
import type { WorkflowPlan } from '../../../src/workflow/run/plan.js';
import { REPO_ROOT } from '../../helpers/team.js';

/** One workflow of the differential corpus: where it is, and the roles folder it needs (SynthDev's layout). */
export interface CorpusWorkflow {
  file: string;
  roles?: string;
}

/** Every workflow the differential test runs: troupe's shipped ones, the test fixtures, SynthDev's bookshop and grocery_store_test. */
export function corpusWorkflows(): CorpusWorkflow[] {
  const out: CorpusWorkflow[] = [];
  for (const f of readdirSync(join(REPO_ROOT, 'workflows'), { withFileTypes: true })) {
    if (f.isFile() && f.name.endsWith('.json') && f.name !== 'roles.json') out.push({ file: join('workflows', f.name) });
    if (f.isDirectory() && existsSync(join(REPO_ROOT, 'workflows', f.name, 'config.json'))) out.push({ file: join('workflows', f.name) });
  }
  for (const f of readdirSync(join(REPO_ROOT, 'tests', 'fixtures', 'workflows'))) if (f.endsWith('.json')) out.push({ file: join('tests', 'fixtures', 'workflows', f) });
  out.push({ file: 'tests/fixtures/synthdev/src/config/workflows/bookshop_visit.json', roles: 'tests/fixtures/synthdev/src/config/roles' });
  out.push({ file: 'tests/fixtures/synthdev-grocery/src/config/workflows/grocery_store_test.json', roles: 'tests/fixtures/synthdev-grocery/src/config/roles' });
  return out;
}

/** A workflow's plan, loaded as `troupe run` loads it. */
export function corpusPlan(w: CorpusWorkflow): WorkflowPlan {
  return loadWorkflowPlan(w.file, { cwd: REPO_ROOT, env: {}, ...(w.roles ? { roles: join(REPO_ROOT, w.roles) } : {}) });
}

/** script.js of a workflow or of one of its sub-workflows, by workflow name. */
export function scriptsOf(plan: WorkflowPlan): (name: string) => string | null {
  const all = new Map<string, WorkflowPlan>();
  const add = (p: WorkflowPlan) => {
    all.set(p.name, p);
    for (const sub of Object.values(p.subWorkflows)) add(sub);
  };
  add(plan);
  return (name) => all.get(name)?.script ?? null;
}

/** Every evaluation a run of the workflow on the demo model asks for, with the answer `evaluator` gave (the steps leave it every one that runs code). */
export async function recordRun(plan: WorkflowPlan, evaluator: Evaluator, brief = 'a small tool that counts words'): Promise<{ evaluation: Evaluation; result: EvaluationResult }[]> {
  const seen: { evaluation: Evaluation; result: EvaluationResult }[] = [];
  const recording: Evaluator = {
    async evaluate(evaluation, signal) {
      const copy = structuredClone(evaluation);
      const result = await evaluator.evaluate(evaluation, signal);
      seen.push({ evaluation: copy, result });
      return result;
    },
  };
  const session = await openSession({ workflow: plan, evaluator: recording, tierInStep: false, model: new DemoModel(), id: `corpus-${plan.name}`, env: {}, memory: false, brief });
  session.start(brief);
  await session.settled();
  return seen;
}
