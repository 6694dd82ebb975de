import { describe, expect, it } from 'vitest';
import { buildRunner } from '../../src/runtime/build-runner.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import { usageState } from '../../src/usage/usage-meter.js';
import { fixedClock, studio } from '../helpers/team.js';

const script = () => [
  { text: 'Concept: a bonsai that outlives you.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer', key_decisions: ['The tree outlives the player'] } },
  { text: 'Loop: prune, wait, shape.', directive: { transition: 'RESPOND_TO_USER' } },
];

describe('buildRunner', () => {
  it('a session resumed without saved memory rebuilds it from the transcript: brief, turns and pins reach the next prompt', async () => {
    const team = studio();
    const first = buildRunner({ team, model: new ScriptedModel(script()), sessionId: 's', clock: fixedClock() });
    first.runner.start('A bonsai game');
    await first.runner.settled();
    const saved = first.runner.session;

    const model = new ScriptedModel([{ text: 'ok', directive: { transition: 'RESPOND_TO_USER' } }]);
    const resumed = buildRunner({ team, model, sessionId: 's', session: saved, memoryState: null, clock: fixedClock() });
    resumed.runner.dispatch({ type: 'user_message', text: 'make it harder' });
    await resumed.runner.settled();
    const prompt = model.calls[0]!.messages.map((m) => m.content).join('\n');
    expect(prompt).toContain('A bonsai game');
    expect(prompt).toContain('The tree outlives the player');
    expect(prompt).toContain('Concept: a bonsai that outlives you.');
    expect(prompt).toContain('Loop: prune, wait, shape.');
    expect(prompt).toContain('The user replies: make it harder');
    // The same prompt as a session that kept its memory all along.
    const kept = new ScriptedModel([{ text: 'ok', directive: { transition: 'RESPOND_TO_USER' } }]);
    const continued = buildRunner({ team, model: kept, sessionId: 's', session: saved, memoryState: first.memory!.memory.toJSON(), clock: fixedClock() });
    continued.runner.dispatch({ type: 'user_message', text: 'make it harder' });
    await continued.runner.settled();
    expect(model.calls[0]!.messages).toEqual(kept.calls[0]!.messages);
  });

  it('continues usage totals from the saved state', async () => {
    const team = studio();
    const meter = new UsageMeter();
    const model = new ScriptedModel([{ ...script()[1]!, usage: { promptTokens: 100, completionTokens: 10 } }]);
    const { runner } = buildRunner({ team, model, sessionId: 's', meter, usageState: { session: { calls: 2, promptTokens: 1000, completionTokens: 50, cost: 0, unpricedCalls: 2 }, byPersona: {}, byModel: {}, unpricedModels: [], callsWithoutUsage: 0 } });
    runner.start('brief');
    await runner.settled();
    expect(usageState(meter).session).toMatchObject({ calls: 3, promptTokens: 1100, completionTokens: 60 });
  });
});
