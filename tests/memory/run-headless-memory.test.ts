import { describe, expect, it } from 'vitest';
import { runHeadless } from '../../src/cli/run-command.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { fixedClock, studio } from '../helpers/team.js';

async function run(enabled: boolean): Promise<Record<string, unknown>[]> {
  const team = studio();
  team.loaded.team.memory = { ...team.loaded.team.memory, enabled };
  const lines: string[] = [];
  await runHeadless({ team, model: new DemoModel(), brief: 'A lighthouse game', mode: 'fsm', json: true, write: (l) => lines.push(l), sessionId: 's1', clock: fixedClock() });
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('troupe run --json with memory', () => {
  it('carries memory_compressed events (and summary usage) when memory is enabled', async () => {
    const events = await run(true);
    const compressed = events.filter((e) => e.type === 'memory_compressed');
    expect(compressed.length).toBeGreaterThan(0);
    expect(compressed[0]).toMatchObject({ session_id: 's1', summaries: 1 });
    expect(events.some((e) => e.type === 'usage' && e.persona === null)).toBe(true);
    expect(events[events.length - 1]).toMatchObject({ type: 'session_ended', reason: 'awaiting_user' });
  });

  it('runs with the full history and no memory events when memory is disabled', async () => {
    const events = await run(false);
    expect(events.some((e) => e.type === 'memory_compressed' || e.type === 'memory_trimmed')).toBe(false);
    expect(events[events.length - 1]).toMatchObject({ type: 'session_ended' });
  });
});
