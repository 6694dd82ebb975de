import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseLine } from '../../../src/commands/parse.js';
import { loadTeam } from '../../../src/config/load-team.js';
import { teamDir } from '../../../src/package-root.js';
import { loadWorkflow } from '../../../src/workflow/load/load-workflow.js';
import { workflowDirs, workflowNames } from '../../../src/workflow/load/locate.js';
import { trimMessages } from '../../../src/workflow/run/frames.js';
import { createSandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { cleanEnv } from '../../helpers/cli.js';
import { REPO_ROOT } from '../../helpers/team.js';
import { ofType, runJson } from '../../helpers/workflow-run.js';

// The seeds' own examples, copied verbatim from the seed texts into tests/fixtures/seeds/: seed 000's
// coder_reviewer and hierarchical_development in one workflows.json array (its loader reads
// config/workflows/workflows.json) with its roles.json; seed 001's your_workflow.json and advanced_workflow
// (config.json and the script.js of its "Custom Script Functions").
const SEEDS = join(REPO_ROOT, 'tests', 'fixtures', 'seeds');
const team = loadTeam(teamDir()).team;
const dirsWith = (dir: string) => [dir, ...workflowDirs(REPO_ROOT)];

describe("seed 000's examples load unchanged", () => {
  const dirs = dirsWith(join(SEEDS, '000'));

  it('a workflows.json array: each workflow is found by its workflow_name (a sub-workflow in the same file too)', () => {
    for (const name of ['coder_reviewer', 'hierarchical_development']) {
      const loaded = loadWorkflow(name, { cwd: REPO_ROOT, dirs, team });
      expect(loaded.issues).toEqual([]);
      expect(loaded.location.file).toBe(join(SEEDS, '000', 'workflows.json'));
      expect(loaded.plan!.name).toBe(name);
    }
    const hierarchical = loadWorkflow('hierarchical_development', { cwd: REPO_ROOT, dirs, team }).plan!;
    expect(Object.keys(hierarchical.subWorkflows)).toEqual(['coder_reviewer']);
    expect(workflowNames([join(SEEDS, '000')]).map((w) => w.name)).toEqual(['coder_reviewer', 'hierarchical_development']);
  });

  it('its roles.json is merged with the roles defined elsewhere: the partial reviewer adds its parsing tool to a full reviewer, its product_manager is its own', () => {
    const plan = loadWorkflow('hierarchical_development', { cwd: REPO_ROOT, dirs, team }).plan!;
    const seedRoles = JSON.parse(readFileSync(join(SEEDS, '000', 'roles.json'), 'utf8')) as Record<string, { systemMessage?: string }>;
    expect(plan.agents.find((a) => a.id === 'product_manager')!.systemMessage).toBe(seedRoles.product_manager!.systemMessage);
    const reviewer = plan.subWorkflows.coder_reviewer!.agents.find((a) => a.id === 'reviewer')!;
    expect(reviewer.parsingTools.map((t) => t.name)).toEqual(['review_work']);
    expect(reviewer.systemMessage).toMatch(/code reviewer/);
  });

  it('trims a context past max_length as its WorkflowContext does: at least 10 messages besides the system ones stay', () => {
    const messages = [{ role: 'system', content: 'sys' }, ...Array.from({ length: 14 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: 'x'.repeat(100) + i }))];
    const kept = trimMessages(messages, 500);
    expect(kept).toHaveLength(11);
    expect(kept[0]).toEqual({ role: 'system', content: 'sys' });
    expect(kept.slice(1)).toEqual(messages.slice(5));
    expect(trimMessages(messages.slice(0, 5), 10_000)).toEqual(messages.slice(0, 5));
  });

  it('/workflow X "…" takes the input without the quotes', () => {
    const def = { agents: [] } as unknown as Parameters<typeof parseLine>[1];
    expect(parseLine('/workflow coder_reviewer "Optimize database query performance"', def)).toEqual({ kind: 'workflow', name: 'coder_reviewer', input: 'Optimize database query performance' });
    expect(parseLine('/workflow coder_reviewer say "hi" twice', def)).toEqual({ kind: 'workflow', name: 'coder_reviewer', input: 'say "hi" twice' });
  });
});

describe("seed 001's examples", () => {
  const dirs = dirsWith(join(SEEDS, '001'));
  const temp = mkdtempSync(join(tmpdir(), 'troupe-seed-001-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it('your_workflow.json loads unchanged', () => {
    const loaded = loadWorkflow('your_workflow', { cwd: REPO_ROOT, dirs, team });
    expect(loaded.issues).toEqual([]);
    expect(loaded.plan!.states.map((s) => s.name)).toEqual(['start', 'stop']);
  });

  it('an input with a default (and required) runs without one: the default is the input', async () => {
    const config = JSON.parse(readFileSync(join(SEEDS, '001', 'your_workflow.json'), 'utf8')) as Record<string, unknown>;
    config.input = { name: 'user_request', type: 'string', description: 'Clear description of the input', required: true, default: 'default_value' };
    const file = join(temp, 'with_default.json');
    writeFileSync(file, JSON.stringify(config));
    const run = await runJson(['run', '--workflow', file], cleanEnv());
    expect(run.stderr).not.toMatch(/needs an input/);
    expect(run.code).toBe(0);
    expect(ofType(run.events, 'agent_message')).toHaveLength(1);
    const withoutDefault = await runJson(['run', '--workflow', join(SEEDS, '001', 'your_workflow.json')], cleanEnv());
    expect(withoutDefault.code).toBe(2);
    expect(withoutDefault.stderr).toMatch(/needs an input/);
  });

  it("advanced_workflow with the seed's script.js: the handlers its config names but the script never defines are named, nothing else", () => {
    const loaded = loadWorkflow('advanced_workflow', { cwd: REPO_ROOT, dirs, team });
    expect(loaded.issues.map((i) => `${i.field}: ${i.problem}`)).toEqual([
      'states[0].pre_handler: script.js has no function "initializeAnalysis"',
      'states[1].pre_handler: script.js has no function "prepareImplementation"',
      'states[1].post_handler: script.js has no function "validateImplementation"',
      'states[1].transition_handler: script.js has no function "checkCompletion"',
    ]);
  });

  it("the seed's script.js runs unchanged: initializeWorkflow reads this.input.task_description, processAnalysis reads this.last_response as text", async () => {
    cpSync(join(SEEDS, '001', 'advanced_workflow'), join(temp, 'advanced_workflow'), { recursive: true });
    const script = readFileSync(join(SEEDS, '001', 'advanced_workflow', 'script.js'), 'utf8');
    const sandbox = createSandboxEvaluator({ scriptFor: () => script });
    try {
      const scope = {
        common_data: { task_description: 'sort a list' },
        input: null,
        workflow_input: { name: 'task_description', text: 'sort a list', value: 'sort a list' },
        contexts: {},
        agents: {},
        last_agent_response: 'A moderate task: the requirement is a stable sort.',
        last_tool_calls: [],
      };
      const init = await sandbox.evaluate({ workflow: 'advanced_workflow', state: 'start', purpose: 'enter', code: { kind: 'handler', name: 'initializeWorkflow' }, scope });
      expect(init).toMatchObject({ ok: true, logs: ['Starting workflow: sort a list'], common_data: { iteration_count: 0 } });
      const analysed = await sandbox.evaluate({ workflow: 'advanced_workflow', state: 'start', purpose: 'after', code: { kind: 'handler', name: 'processAnalysis' }, scope });
      expect(analysed).toMatchObject({ ok: true, common_data: { analysis_result: { complexity: 'medium', requirements: ['A moderate task: the requirement is a stable sort.'] } } });
    } finally {
      await sandbox.close();
    }
  });
});
