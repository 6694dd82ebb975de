import { describe, expect, it } from 'vitest';
import { PacedModel } from '../../src/llm/paced-model.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { AbortedError } from '../../src/llm/errors.js';

const request = (signal?: AbortSignal) => ({
  model: 'demo',
  messages: [{ role: 'user' as const, content: 'hi' }],
  meta: { purpose: 'persona' as const, persona: 'ceo', brief: 'b' },
  ...(signal ? { signal } : {}),
});

describe('PacedModel', () => {
  it('replays every delta with one sleep each and returns the same response', async () => {
    const sleeps: number[] = [];
    const paced = new PacedModel(new DemoModel(), 25, async (ms) => void sleeps.push(ms));
    const deltas: string[] = [];
    const response = await paced.generate({ ...request(), onDelta: (d) => deltas.push(d.text) });
    expect(deltas.join('')).toBe(response.text);
    expect(sleeps).toHaveLength(deltas.length);
    expect(sleeps.every((ms) => ms === 25)).toBe(true);
    expect(paced.offline).toBe(true);
  });

  it('stops when the call is aborted', async () => {
    const controller = new AbortController();
    const paced = new PacedModel(new DemoModel(), 25, async (_ms, signal) => {
      controller.abort();
      if (signal?.aborted) throw new AbortedError('call aborted');
    });
    await expect(paced.generate({ ...request(controller.signal), onDelta: () => {} })).rejects.toBeInstanceOf(AbortedError);
  });
});
