import { afterEach, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { cleanup, render } from 'ink-testing-library';
import { Shell } from '../../src/ui/run-ui.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { demoProgress } from '../../src/session/demo-progress.js';
import { openSession } from '../../src/session/open-session.js';
import { stateAtStep } from '../../src/session/at-step.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { workflowLauncher } from '../../src/cli/workflow-launcher.js';
import { REPO_ROOT, fixedClock, studio } from '../helpers/team.js';
import { tick, until } from './wait.js';

afterEach(() => cleanup());
const ENV = { TROUPE_MODEL: 'test-model' };

describe('!rewind in the terminal UI', () => {
  it('lists the steps, forks the session at one and moves to the fork, which goes on with other input; the session left stays as it was', async () => {
    const store = new MemoryStore();
    const team = studio();
    const first = await openSession({ team, model: new DemoModel(), store, id: 'orig', env: ENV, clock: fixedClock(), memory: false });
    first.start('A lighthouse keeper game');
    await first.settled();
    await first.stop();
    const session = await openSession({ team, model: new DemoModel(), store, resume: 'orig', env: ENV, memory: false });
    const source = await store.read('orig');
    const step = source.records.findIndex((r) => r.events.some((e) => e.type === 'awaiting_user')) + 1;
    const io = { cwd: REPO_ROOT, env: ENV, stdout: { write: () => true }, stderr: { write: () => true }, stdin: Readable.from([]), interactive: true };
    const workflows = workflowLauncher(io, { team, teamDir: REPO_ROOT, store, model: () => new DemoModel(), resumed: async (events) => new DemoModel(demoProgress(await events())) });
    const ui = render(<Shell session={session} workflows={workflows} onReady={() => session.resume()} />);
    const frame = () => ui.lastFrame() ?? '';
    await tick();
    ui.stdin.write('!rewind\r');
    await until(() => frame().includes('fork the session at a step'), frame);
    expect(frame()).toMatch(/ \d+ {2}CEO answered/);

    ui.stdin.write(`!rewind ${step}\r`);
    await until(() => store.docs.size === 2 && frame().includes('session resumed at turn'), frame);
    const forkId = [...store.docs.keys()].find((id) => id !== 'orig')!;
    const fork = await store.read(forkId);
    expect(fork.doc.forkedFrom).toEqual({ id: 'orig', step });
    expect(stateAtStep(team.def, fork, step).turn).toBe(stateAtStep(team.def, source, step).turn);
    await tick(50);
    ui.stdin.write('Make it a lighthouse on Mars\r');
    await until(() => frame().includes('Make it a lighthouse on Mars'), frame);
    await until(
      () => store.journals.get(forkId)!.length > step + 1,
      () => `fork journal: ${store.journals.get(forkId)!.length}`,
    );
    const after = await store.read(forkId);
    expect(after.events.some((e) => e.type === 'user_input' && e.text === 'Make it a lighthouse on Mars')).toBe(true);
    // The session left: the user's line never reached it.
    expect((await store.read('orig')).events.some((e) => e.type === 'user_input' && e.text === 'Make it a lighthouse on Mars')).toBe(false);
    ui.stdin.write('!quit\r');
    await tick(50);
    await session.stop().catch(() => undefined);
  });
});
