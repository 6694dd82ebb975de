import { describe, expect, it } from 'vitest';
import { attachOutput } from '../../src/cli/attach-output.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { studio, studioRunner } from '../helpers/team.js';

/** A headless run printing `--json` lines, as `troupe run --json` does, then letting go of the session. */
async function run(enabled: boolean): Promise<Record<string, unknown>[]> {
  const { runner } = await studioRunner(new DemoModel(), { team: studio(), id: 's1', memory: enabled });
  const lines: string[] = [];
  attachOutput(runner, { json: true, write: (l) => lines.push(l) });
  runner.start('A lighthouse game');
  await runner.settled();
  await runner.settleMemory();
  await runner.stop({ reason: 'awaiting_user' });
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('troupe run --json with memory', () => {
  it('carries memory_compressed events (and summary usage) when memory is enabled', async () => {
    const events = await run(true);
    const compressed = events.filter((e) => e.type === 'memory_compressed');
    expect(compressed.length).toBeGreaterThan(0);
    expect(compressed[0]).toMatchObject({ session_id: 's1', summaries: 1 });
    expect(events.some((e) => e.type === 'usage' && e.persona === null)).toBe(true);
    expect(events[events.length - 1]).toMatchObject({ type: 'session_detached', reason: 'awaiting_user' });
  });

  it('runs with the full history and no memory events when memory is disabled', async () => {
    const events = await run(false);
    expect(events.some((e) => e.type === 'memory_compressed' || e.type === 'memory_trimmed')).toBe(false);
    expect(events[events.length - 1]).toMatchObject({ type: 'session_detached' });
  });
});
