import { describe, expect, it } from 'vitest';
import { FOREVER, ScriptExhaustedError, ScriptedModel } from '../../src/llm/scripted-model.js';

const call = { model: 'm', messages: [], meta: { purpose: 'persona' as const, persona: 'ceo' } };

describe('ScriptedModel', () => {
  it('throws on a call past its script and keeps it for the test setup to fail the test', async () => {
    const model = new ScriptedModel([{ text: 'only one' }]);
    await model.generate(call);
    await expect(model.generate(call)).rejects.toBeInstanceOf(ScriptExhaustedError);
    // The console guard fails any test that leaves this list non-empty; this test empties it itself.
    expect(ScriptedModel.unexpected.splice(0)).toEqual(['ScriptedModel: script exhausted after 1 step(s); unexpected call #2 for ceo']);
  });

  it('assertComplete fails while steps are left', async () => {
    const model = new ScriptedModel([{ text: 'a' }, { text: 'b' }]);
    await model.generate(call);
    expect(() => model.assertComplete()).toThrow('1 of 2 step(s) never used');
    await model.generate(call);
    expect(() => model.assertComplete()).not.toThrow();
  });

  it('a held step answers when the test releases it, or fails when the call is aborted', async () => {
    let release!: () => void;
    const model = new ScriptedModel([
      { text: 'later', hold: new Promise<void>((r) => (release = r)) },
      { text: 'never', hold: FOREVER },
    ]);
    const first = model.generate(call);
    await model.started(1);
    release();
    expect((await first).text).toBe('later');
    const controller = new AbortController();
    const second = model.generate({ ...call, signal: controller.signal });
    await model.started(2);
    controller.abort();
    await expect(second).rejects.toThrow('call aborted');
  });
});
