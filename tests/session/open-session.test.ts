import { describe, expect, it } from 'vitest';
import { replayLabel } from '../../src/llm/replay-label.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { openSession } from '../../src/session/open-session.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { usageState, UsageMeter } from '../../src/usage/usage-meter.js';
import { fixedClock, studio } from '../helpers/team.js';

const script = () => [
  { text: 'Concept: a bonsai that outlives you.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer', key_decisions: ['The tree outlives the player'] } },
  { text: 'Loop: prune, wait, shape.', directive: { transition: 'RESPOND_TO_USER' } },
];
const ENV = { TROUPE_MODEL: 'test-model' };

/** Runs the script into a store and closes the session. */
async function stored(): Promise<MemoryStore> {
  const store = new MemoryStore();
  const first = await openSession({ team: studio(), model: new ScriptedModel(script()), store, id: 's', clock: fixedClock(), env: ENV, memory: true });
  first.start('A bonsai game');
  await first.settled();
  await first.stop();
  return store;
}

/** Reopens the stored session and sends one reply; returns the prompt the model got. */
async function reply(store: MemoryStore): Promise<ScriptedModel> {
  const model = new ScriptedModel([{ text: 'ok', directive: { transition: 'RESPOND_TO_USER' } }]);
  const resumed = await openSession({ team: studio(), model, store, resume: 's', clock: fixedClock(), env: ENV, memory: true });
  resumed.send({ type: 'user_message', text: 'make it harder' });
  await resumed.settled();
  await resumed.stop();
  return model;
}

describe('openSession', () => {
  it('a session resumed without saved memory rebuilds it from its events: brief, turns and pins reach the next prompt', async () => {
    const withMemory = await stored();
    const without = await stored();
    const doc = JSON.parse(without.docs.get('s')!);
    doc.checkpoint.memory = null;
    without.docs.set('s', JSON.stringify(doc));
    const model = await reply(without);
    const prompt = model.calls[0]!.messages.map((m) => m.content).join('\n');
    expect(prompt).toContain('A bonsai game');
    expect(prompt).toContain('The tree outlives the player');
    expect(prompt).toContain('Concept: a bonsai that outlives you.');
    expect(prompt).toContain('Loop: prune, wait, shape.');
    expect(prompt).toContain('The user replies: make it harder');
    // The same prompt as a session that kept its memory all along.
    const kept = await reply(withMemory);
    expect(model.calls[0]!.messages).toEqual(kept.calls[0]!.messages);
  });

  it('continues usage totals from the saved state', async () => {
    const store = await stored();
    const doc = JSON.parse(store.docs.get('s')!);
    doc.checkpoint.usage = { session: { calls: 2, promptTokens: 1000, completionTokens: 50, cost: 0, unpricedCalls: 2 }, byPersona: {}, byModel: {}, unpricedModels: [], callsWithoutUsage: 0 };
    store.docs.set('s', JSON.stringify(doc));
    const meter = new UsageMeter();
    const model = new ScriptedModel([{ ...script()[1]!, usage: { promptTokens: 100, completionTokens: 10 } }]);
    const session = await openSession({ team: studio(), model, store, resume: 's', meter, env: ENV });
    session.send({ type: 'user_message', text: 'more' });
    await session.settled();
    expect(usageState(meter).session).toMatchObject({ calls: 3, promptTokens: 1100, completionTokens: 60 });
  });

  it('a session that ran from a recording, reopened on another model, says so in a note (a server cannot ask)', async () => {
    const store = new MemoryStore();
    const recorded = Object.assign(new ScriptedModel(script()), { label: replayLabel('run.jsonl', 'gpt-4o') });
    const first = await openSession({ team: studio(), model: recorded, store, id: 's', clock: fixedClock(), env: ENV });
    first.start('A bonsai game');
    await first.settled();
    await first.stop();
    const resumed = await openSession({ team: studio(), model: new ScriptedModel([]), store, resume: 's', clock: fixedClock(), env: ENV });
    const notes = resumed
      .recent()
      .filter((e) => e.type === 'note')
      .map((e) => (e as { text: string }).text);
    await resumed.stop();
    expect(notes).toContainEqual(expect.stringMatching(/ran from the recording run\.jsonl, which holds nothing past where it stopped: it goes on with /));
  });
});
