import { afterEach, beforeEach, vi } from 'vitest';
import { ScriptedModel } from '../../src/llm/scripted-model.js';

// Tests must not print stray output: a console call fails the test that made it.
let calls: string[] = [];
beforeEach(() => {
  calls = [];
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      calls.push(`console.${method}: ${args.map(String).join(' ').slice(0, 200)}`);
    });
  }
});
afterEach(() => {
  vi.restoreAllMocks();
  if (calls.length > 0) throw new Error(`unexpected console output:\n${calls.join('\n')}`);
  // A scripted model asked for more than its script holds means the test's story is wrong, even if the
  // session absorbed the error as a paused turn.
  const unexpected = ScriptedModel.unexpected.splice(0);
  if (unexpected.length > 0) throw new Error(`unexpected model calls:\n${unexpected.join('\n')}`);
});
