import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runWorkflow, validateWorkflow, WorkflowStateMachine } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { REPO_ROOT } from '../helpers/team.js';

const EXAMPLE = join(REPO_ROOT, 'tests', 'workflow', '.readme-example.tmp.ts');
afterEach(() => rmSync(EXAMPLE, { force: true }));

describe('workflows from code (the library API)', () => {
  it("the README's example runs as written (its imports pointed at src/)", async () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const block = /<!-- readme-example: workflows -->\n```ts\n([\s\S]*?)```/.exec(readme);
    expect(block).not.toBeNull();
    writeFileSync(EXAMPLE, block![1]!.replaceAll("from 'troupe'", `from ${JSON.stringify(join(REPO_ROOT, 'src', 'index.js'))}`));
    const lines: unknown[][] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args));
    const cwd = vi.spyOn(process, 'cwd').mockReturnValue(REPO_ROOT);
    try {
      await import(EXAMPLE);
    } finally {
      log.mockRestore();
      cwd.mockRestore();
    }
    expect(lines).toEqual([
      [true, []],
      [true, 'start → code → review → code → review → stop'],
      [true, true],
    ]);
  });

  it("validateWorkflow names every problem; runWorkflow runs on the model given and answers in SynthDev's shape", async () => {
    const broken = validateWorkflow(join(REPO_ROOT, 'tests', 'fixtures', 'seeds', '001', 'advanced_workflow'), { cwd: REPO_ROOT });
    expect(broken.valid).toBe(false);
    expect(broken.problems).toHaveLength(4);
    expect(broken.problems[0]).toMatch(/config\.json: states\[0\]\.pre_handler: script\.js has no function "initializeAnalysis"/);

    const model = new ScriptedModel([{ text: 'The request needs a haiku.' }, { text: 'An old silent pond' }]);
    const result = await runWorkflow(join(REPO_ROOT, 'workflows', 'linear_analysis.json'), { cwd: REPO_ROOT, model, input: { user_request: 'a haiku' } });
    expect(result).toMatchObject({ success: true, workflow_name: 'linear_analysis', output: 'An old silent pond', states_visited: ['analyze', 'implement', 'stop'] });
    expect(result.common_data).toMatchObject({ user_request: 'a haiku', analysis: 'The request needs a haiku.' });
  });

  it('a run that stops without finishing is not a success, and says why', async () => {
    const model = new ScriptedModel([{ text: 'v1' }, { text: 'never calls review_work' }, { text: 'still no tool' }]);
    const machine = new WorkflowStateMachine({ cwd: REPO_ROOT, model });
    await machine.loadWorkflow('coder_reviewer');
    expect(machine.getAvailableWorkflows()).toEqual(['coder_reviewer']);
    const result = await machine.executeWorkflow('coder_reviewer', 'a parser');
    expect(result.success).toBe(false);
    expect(result.error).toMatch(/did not call review_work/);
    await expect(new WorkflowStateMachine().executeWorkflow('x')).rejects.toThrow(/loadWorkflow/);
  });
});
