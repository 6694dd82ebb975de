import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../../src/engine/event-map.js';
import { DemoModel } from '../../../src/llm/demo-model.js';
import { demoProgress } from '../../../src/session/demo-progress.js';
import { DemoProgress, DemoSessionModel } from '../../../src/serve/restate/demo.js';
import { studioRunner } from '../../helpers/team.js';

describe('the demo on Restate', () => {
  it('follows the story from the events as they are published, as demoProgress reads it from the log', async () => {
    const progress = new DemoProgress(null);
    const { runner, events } = await studioRunner(new DemoSessionModel(progress));
    runner.subscribe((e) => progress.feed(e));
    runner.start('A lighthouse keeper game');
    await runner.settled();
    await runner.stop();
    const stored = events.filter((e: TroupeEvent) => e.type !== 'agent_delta');
    expect(progress.spoken).toEqual(demoProgress(stored));
    expect(Object.values(progress.spoken).reduce((n, v) => n + v, 0)).toBeGreaterThan(1);
    // Each call was answered by a demo at the session's place in the story: the lines go on, none repeats.
    const texts = stored.filter((e) => e.type === 'agent_message').map((e) => (e as { text: string }).text);
    expect(new Set(texts).size).toBe(texts.length);
    expect(new DemoSessionModel(progress).label).toBe(new DemoModel().label);
  });

  it('continues from the progress kept with the session', () => {
    expect(new DemoProgress({ creative_partner: 2 }).spoken).toEqual({ creative_partner: 2 });
  });
});
