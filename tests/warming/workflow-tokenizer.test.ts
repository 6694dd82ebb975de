import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WarmingSettingsSchema } from '../../src/config/team-schema.js';
import type { WorkflowPlan } from '../../src/workflow/run/plan.js';
import { REPO_ROOT } from '../helpers/team.js';
import { expr, state, workflowPlan } from '../helpers/workflow-plan.js';

const dist = (path: string) => pathToFileURL(join(REPO_ROOT, 'dist', path)).href;

const plan: WorkflowPlan = workflowPlan({
  name: 'twice',
  input: { name: 'task' },
  output: { name: 'out' },
  contexts: [{ name: 'c', starting: [], maxLength: 50_000 }],
  agents: [{ id: 'coder', context: 'c', role: 'assistant', name: 'Coder', systemMessage: 'You code.', model: 'base', parsingTools: [], requestUserInput: false, tools: [], maxToolSteps: 20 }],
  states: [
    state({ name: 'start', agent: 'coder', input: expr('common_data.task'), transitions: [{ target: 'again', condition: expr('true'), before: null }] }),
    state({ name: 'again', agent: 'coder', input: expr("'again'"), transitions: [{ target: 'stop', condition: expr('true'), before: null }] }),
    state({ name: 'stop', final: true }),
  ],
  start: 'start',
  warming: WarmingSettingsSchema.parse({ mode: 'prefix' }),
});

describe('workflow warming in a fresh process (issue 24)', () => {
  it('loads the tokenizer in the background once the first answer is in, so no warming request loads it in the middle of a turn', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
const { openSession } = await import('${dist('session/open-session.js')}');
const { tokenizerLoading, tokenizerReady } = await import('${dist('memory/tokens.js')}');
const seen = [];
const model = {
  label: 'recorder',
  async generate(request) {
    if (request.meta.purpose === 'warming') return { text: '', toolCalls: [], usage: null, finishReason: 'length', model: request.model };
    seen.push(tokenizerReady());
    // The second call waits for the load started after the first answer (none started: it stays unloaded), with no warming request sent yet.
    if (seen.length === 2) {
      await tokenizerLoading();
      seen.push(tokenizerReady());
    }
    return { text: 'Done.', toolCalls: [], usage: { promptTokens: 2000, completionTokens: 5, cachedTokens: 1024 }, finishReason: 'stop', model: request.model };
  },
};
const session = await openSession({ model, memory: false, workflow: ${JSON.stringify(plan)}, env: { TROUPE_MODEL: 'test-model' } });
session.start('a parser');
await session.settled();
await session.stop();
console.log(JSON.stringify(seen));
`,
      ],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    // Not during the first call; loaded while the second answers.
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual([false, false, true]);
  });
});
