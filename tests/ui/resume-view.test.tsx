import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { App } from '../../src/ui/App.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { studio, studioRunner } from '../helpers/team.js';
import { tick, until } from './wait.js';

afterEach(() => cleanup());

describe('App on a resumed session', () => {
  it('shows the stored history, its usage, and starts the re-run turn only once it listens', async () => {
    // A first process: one finished turn, then a turn in flight when it "crashed".
    const store = new MemoryStore();
    const first = await studioRunner(
      new ScriptedModel([
        { text: 'Concept: tides that remember.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' }, usage: { promptTokens: 900, completionTokens: 100 } },
        { text: 'never finished', delayMs: 60_000 },
      ]),
      { store },
    );
    first.runner.start('a tide game');
    await until(
      () => first.runner.getSnapshot().inFlight?.persona === 'game_designer',
      () => 'second turn in flight',
    );
    // The copy a crash leaves: what the store holds now (the first session is never stopped).
    const crashed = MemoryStore.from({ 's-test': store.copy('s-test') });
    const history: TroupeEvent[] = first.events.filter((e) => e.type !== 'agent_delta');
    expect(history.some((e) => e.type === 'usage')).toBe(true);

    const model = new ScriptedModel([{ text: 'The loop: tide in, tide out.', directive: { transition: 'RESPOND_TO_USER' } }]);
    const { runner } = await studioRunner(model, { team: studio(), store: crashed, resume: 's-test' });
    let readyCalls = 0;
    const ui = render(
      <App
        session={runner}
        columns={100}
        rows={40}
        history={history}
        onReady={() => {
          readyCalls += 1;
          runner.resume();
        }}
      />,
    );
    await tick();
    const frame = () => ui.lastFrame() ?? '';
    expect(frame()).toContain('Concept: tides that remember.');
    expect(frame()).toContain('tokens 1.0k');
    expect(readyCalls).toBe(1);
    await until(
      () => frame().includes('The loop: tide in, tide out.'),
      () => frame(),
    );
    expect(model.calls[0]!.meta.persona).toBe('game_designer');
  });
});
