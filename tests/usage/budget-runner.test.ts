import { describe, expect, it } from 'vitest';
import { studio, studioRunner } from '../helpers/team.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';

describe('session budgets', () => {
  it('limits.max_tokens pauses the session with the reason; !continue runs the held turn', async () => {
    const team = studio();
    team.def.limits = { ...team.def.limits, max_tokens: 1000 };
    const usage = { promptTokens: 800, completionTokens: 300 };
    const model = new ScriptedModel([
      { text: 'Concept.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' }, usage },
      { text: 'Loop.', directive: { transition: 'RESPOND_TO_USER' }, usage },
    ]);
    const meter = new UsageMeter();
    const { runner, events } = await studioRunner(model, { team, meter });
    runner.start('a game');
    await runner.settled();

    expect(model.calls.length).toBe(1);
    expect(runner.getSnapshot().status).toBe('awaiting_user');
    expect(runner.getSnapshot().awaiting).toMatchObject({ code: 'limit', reason: 'token budget reached: 1100 of max_tokens 1000 used; !continue allows another 1000' });
    expect(events.find((e) => e.type === 'usage')).toMatchObject({ persona: 'creative_partner', total_tokens: 1100, cost: null, total_cost: null });
    expect(events.find((e) => e.type === 'agent_aborted')).toMatchObject({ persona: 'game_designer' });

    runner.send({ type: 'user_continue' });
    await runner.settled();
    expect(model.calls.length).toBe(2);
    expect(model.calls[1]!.meta).toMatchObject({ persona: 'game_designer', inbox: 'handoff' });
    expect(runner.getSnapshot().awaiting?.code).toBe('respond_to_user');
  });
});
