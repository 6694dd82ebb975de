import { describe, expect, it } from 'vitest';
import { fakeServerPerTest } from '../helpers/fake-openai-server.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { LIMITS, assertWithinLimit, sizeProblem } from '../../src/llm/limits.js';
import { ModelCallError, UserError } from '../../src/llm/errors.js';
import { cjkRun, longLine } from '../fixtures/hostile-b/inputs.js';

const serve = fakeServerPerTest();

describe('size limits (issue 10, item 7)', () => {
  it('refuses a 10 MB line and a 40k-character CJK brief in one line that names the limit and the fix', () => {
    expect(sizeProblem('inputLine', longLine())).toBe(
      'that line is 10,485,760 characters; the limit is 32,000 — send it in shorter pieces, or put long material in a file a persona prompt references',
    );
    expect(sizeProblem('brief', cjkRun())).toMatch(/^the brief is 40,000 characters; the limit is 32,000 — shorten it/);
    expect(() => assertWithinLimit('brief', cjkRun())).toThrow(UserError);
    expect(sizeProblem('brief', 'A lighthouse game')).toBeNull();
    expect(sizeProblem('inputLine', 'x'.repeat(LIMITS.inputLine))).toBeNull();
  });

  it('stops reading a runaway model answer at the output cap, with a one-line error and no retry', async () => {
    const base = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'test-model' };
    const piece = 'lamp '.repeat(2_000); // 10,000 characters per chunk
    const chunks = Array.from({ length: 40 }, () => ({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] }));
    const s = await serve([{ stream: chunks }, { stream: chunks }]);
    const model = new OpenAIChatModel({ baseURL: s.baseURL, apiKey: 'k', maxRetries: 2, retry: { sleep: async () => {} } });
    let shown = 0;
    const error = await model
      .generate({ model: 'm', messages: [{ role: 'user', content: 'hi' }], meta: { purpose: 'persona' }, onDelta: (d) => void (shown += d.text.length) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as Error).message).toMatch(/^the model's answer from 127\.0\.0\.1:\d+ passed 200,000 characters, so troupe stopped reading it \(a runaway answer\)/);
    expect(shown).toBeLessThanOrEqual(LIMITS.modelOutput);
    expect(s.requests).toHaveLength(1);
  });
});
