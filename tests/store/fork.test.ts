import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { stateAtStep } from '../../src/session/at-step.js';
import { forkSession } from '../../src/store/fork.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import type { Store } from '../../src/store/store.js';
import { fixedClock, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const ENV = { TROUPE_MODEL: 'test-model' };
const temp = tempDirPerTest('troupe-fork-');
const NOW = '2026-02-01T00:00:00.000Z';

/** Runs the demo team to its first pause in `store`, as session "src". */
async function runSource(store: Store) {
  const session = await openSession({ team: studio(), model: new DemoModel(), store, id: 'src', env: ENV, clock: fixedClock(), memory: false });
  session.start('A lighthouse keeper game');
  await session.settled();
  await session.stop();
}

const stores: [string, () => { store: Store; sourceBytes: () => string }][] = [
  [
    'MemoryStore',
    () => {
      const store = new MemoryStore();
      return { store, sourceBytes: () => JSON.stringify(store.copy('src')) };
    },
  ],
  [
    'LowdbStore',
    () => {
      const dir = temp();
      const store = new LowdbStore(dir);
      const files = ['src.json', 'src.jsonl'].map((f) => join(dir, 'sessions', f));
      return { store, sourceBytes: () => files.map((f) => `${readFileSync(f, 'utf8')}@${statSync(f).mtimeMs}`).join('\n') };
    },
  ],
];

describe.each(stores)('forking a stored session (%s)', (_name, make) => {
  it('makes a new session whose journal is a new chain of the source lines up to the step; the source is not touched', async () => {
    const { store, sourceBytes } = make();
    await runSource(store);
    const source = await store.read('src');
    const step = Math.floor(source.records.length / 2);
    const before = sourceBytes();
    const doc = await forkSession(store, { from: 'src', step, id: 'fork1', now: NOW });
    expect(sourceBytes()).toBe(before);
    expect(doc.forkedFrom).toEqual({ id: 'src', step });
    // Read back through the store's own checks: every line sealed in the new chain, the checkpoint's hash at its line.
    const forked = await store.read('fork1');
    expect(forked.records).toHaveLength(step);
    expect(forked.records.map((r) => r.input)).toEqual(source.records.slice(0, step).map((r) => r.input));
    expect(new Set(forked.events.map((e) => e.session_id))).toEqual(new Set(['fork1']));
    expect(forked.records[0]!.hash).not.toBe(undefined);
    expect(forked.doc.base.id).toBe('fork1');
    expect(forked.doc.createdAt).toBe(NOW);
  });

  it('opens where the source was at that step, and goes on with other input; the source keeps its own end', async () => {
    const { store } = make();
    await runSource(store);
    const source = await store.read('src');
    const team = studio();
    // The step at which the source waited for the user the first time.
    const step = source.records.findIndex((r) => r.events.some((e) => e.type === 'awaiting_user')) + 1;
    expect(step).toBeGreaterThan(0);
    const then = stateAtStep(team.def, source, step);
    expect(then.status).toBe('awaiting_user');
    await forkSession(store, { from: 'src', step, id: 'fork2', now: NOW });
    const fork = await openSession({ team, model: new DemoModel(), store, resume: 'fork2', env: ENV, clock: fixedClock(), memory: false });
    expect({ ...fork.getSnapshot(), id: 'src' }).toEqual(then);
    fork.resume();
    fork.send({ type: 'user_message', text: 'Make it about a lighthouse on Mars' });
    await fork.settled();
    await fork.stop();
    const after = await store.read('fork2');
    expect(after.events.some((e) => e.type === 'user_input' && e.text === 'Make it about a lighthouse on Mars')).toBe(true);
    expect((await store.read('src')).records).toHaveLength(source.records.length);
  });

  it('refuses a step the session does not have, in one line naming the range', async () => {
    const { store } = make();
    await runSource(store);
    const last = (await store.read('src')).records.length;
    await expect(forkSession(store, { from: 'src', step: last + 1, id: 'f', now: NOW })).rejects.toThrow(`step ${last + 1} is not a step of session src: it has steps 0 to ${last}`);
    await expect(forkSession(store, { from: 'src', step: -1, id: 'f', now: NOW })).rejects.toThrow(/not a step/);
    expect(await store.ids()).not.toContain('f');
  });

  it('forks a session another process has open (the source is only read)', async () => {
    const { store } = make();
    await runSource(store);
    const open = await store.open('src');
    try {
      await forkSession(store, { from: 'src', step: 3, id: 'fork3', now: NOW });
      expect((await store.read('fork3')).records).toHaveLength(3);
    } finally {
      await open.handle.close();
    }
  });
});
