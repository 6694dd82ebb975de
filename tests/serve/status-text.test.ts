import { describe, expect, it } from 'vitest';
import { FOREVER, ScriptedModel } from '../../src/llm/scripted-model.js';
import { server, until } from '../helpers/serve.js';

describe('GET /v1/sessions/:id says a session is interrupted as the list does', () => {
  it('a session let go of mid-turn: the view and the list both say "interrupted" (status running, hosted false)', async () => {
    const { call, host } = server({ model: () => new ScriptedModel([{ text: 'thinking', hold: FOREVER }]) });
    const { id, statusText } = (await (await call('/v1/sessions', { json: { brief: 'a slow one' } })).json()) as { id: string; statusText: string };
    await until(async () => ((await (await call(`/v1/sessions/${id}`)).json()) as { status: string }).status === 'running', 'the turn');
    expect(statusText).toMatch(/^(running|not started)$/);
    await host.release(id, { reason: 'test' });
    const view = (await (await call(`/v1/sessions/${id}`)).json()) as { status: string; statusText: string; hosted: boolean };
    const list = (await (await call('/v1/sessions')).json()) as { sessions: { id: string; statusText: string }[] };
    expect(view).toMatchObject({ status: 'running', hosted: false, statusText: 'interrupted' });
    expect(list.sessions.find((s) => s.id === id)!.statusText).toBe(view.statusText);
  });
});
