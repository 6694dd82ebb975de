import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { writesSettled } from '../../src/store/writes-in-flight.js';
import { fixedClock, REPO_ROOT, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { BRIEF, ENV } from './support.js';

const temp = tempDirPerTest('troupe-dir-handle-');

/** This process's descriptors open on `dir` (Linux: /proc/self/fd). */
function handlesOn(dir: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === dir) n++;
    } catch {
      // closed while it was listed
    }
  }
  return n;
}

describe('the sessions directory is flushed through one handle the store keeps (serve at 1,000 sessions: fewer calls on the thread pool)', () => {
  it.runIf(existsSync('/proc/self/fd'))('two sessions pausing flush it through the same open handle, and their documents are in place', async () => {
    const data = temp();
    const store = new LowdbStore(data);
    const dir = join(data, 'sessions');
    for (const id of ['first', 'second']) {
      const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model: new DemoModel(), store, id, brief: BRIEF, env: ENV, clock: fixedClock(), memory: false });
      session.start(BRIEF);
      await session.settled();
      await writesSettled();
      expect(session.getSnapshot().status).toBe('awaiting_user');
      // The pause flushed the directory (its document's rename): through a handle still open, and only one.
      expect(handlesOn(dir)).toBe(1);
      await session.stop();
    }
    expect(handlesOn(dir)).toBe(1);
    expect(
      readdirSync(dir)
        .filter((f) => f.endsWith('.json') && f !== 'index.json')
        .sort(),
    ).toEqual(['first.json', 'second.json']);
  });
});
