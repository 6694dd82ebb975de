import { describe, expect, it } from 'vitest';
import { FOREVER, ScriptedModel } from '../../src/llm/scripted-model.js';
import { server, until } from '../helpers/serve.js';

describe("the API's usage says when the calls cost nothing (the console's Cost tab said 'no price' on the demo)", () => {
  it('a demo session: free, running here and stored', async () => {
    const { call, host } = server();
    const { id } = (await (await call('/v1/sessions', { json: { brief: 'a harbour game' } })).json()) as { id: string };
    const view = async () => (await (await call(`/v1/sessions/${id}`)).json()) as { usage: { calls: number; cost: number | null; free: boolean } };
    await until(async () => (await view()).usage.calls > 0, 'a call');
    expect((await view()).usage).toMatchObject({ cost: null, free: true });
    await host.release(id, { reason: 'test' });
    expect((await view()).usage).toMatchObject({ cost: null, free: true });
  });

  it('a session on another model: not free', async () => {
    const { call, host } = server({ model: () => new ScriptedModel([{ text: 'thinking', hold: FOREVER }]) });
    const { id, usage } = (await (await call('/v1/sessions', { json: { brief: 'a slow one' } })).json()) as { id: string; usage: { free: boolean } };
    expect(usage.free).toBe(false);
    await host.release(id, { reason: 'test' });
    expect(((await (await call(`/v1/sessions/${id}`)).json()) as { usage: { free: boolean } }).usage.free).toBe(false);
  });
});
