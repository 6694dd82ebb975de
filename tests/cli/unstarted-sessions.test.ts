import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { cleanEnv, runCli } from '../helpers/cli.js';

// Issue 22, item 6: `/workflow` typed in the UI left an empty "not started" team session behind each time
// (the UI's team session, stopped when the UI moved to the workflow), and a refused piped `/workflow` still
// created a session (and ran the demo brief).

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-unstarted-'));
  dirs.push(dir);
  return dir;
};

describe('a session that never started is not kept', () => {
  it('piped: a refused /workflow starts nothing, stores nothing, and exits 1', async () => {
    const data = dataDir();
    const env = cleanEnv({ TROUPE_DATA_DIR: data });
    const { code, stdout } = await runCli([], env, '/workflow coder_reviewer a bech32 encoder\n');
    expect(code).toBe(1);
    expect(stdout).toContain('workflows run in the terminal UI');
    expect(stdout).not.toContain('Brief:');
    expect(stdout.trim().split('\n').at(-1)).toBe('no brief was given, so nothing was saved');
    expect((await runCli(['sessions'], env)).stdout).toMatch(/^no sessions in /);
  });

  it('piped: !quit before a brief leaves nothing behind, and says so', async () => {
    const data = dataDir();
    const env = cleanEnv({ TROUPE_DATA_DIR: data });
    const { code, stdout } = await runCli([], env, '!status\n!quit\n');
    expect(code).toBe(0);
    expect(stdout).toContain('Session paused: user left — nothing was started, so the session is not kept');
    expect(stdout.trim().split('\n').at(-1)).toBe('no brief was given, so nothing was saved');
    expect(existsSync(join(data, 'sessions')) ? readdirSync(join(data, 'sessions')).filter((f) => !f.startsWith('index')) : []).toEqual([]);
  });

  it('the UI moving to a workflow stops its unstarted team session: its files are removed', async () => {
    const data = dataDir();
    const store = new LowdbStore(data);
    const team = await openSession({ model: new DemoModel(), store, env: {} });
    // Beside them the process's lock holder, which the lock links to while the session is held (see acquireNewLock).
    expect(
      readdirSync(join(data, 'sessions'))
        .filter((f) => !f.startsWith('.lock-holder-'))
        .sort(),
    ).toEqual([`${team.id}.json`, `${team.id}.jsonl`, `${team.id}.lock`]);
    // What src/cli/interactive.ts does when /workflow opens the workflow's session.
    await team.stop({ reason: 'user_left', detail: 'the UI moved to the workflow coder_reviewer' });
    expect(readdirSync(join(data, 'sessions')).filter((f) => f.startsWith(team.id) || f.startsWith('.lock-holder-'))).toEqual([]);
    expect(await store.list()).toEqual([]);
    // A session that started is kept as before.
    const started = await openSession({ model: new DemoModel(), store, env: {}, maxTurns: 1 });
    started.start('a lighthouse game');
    await started.settled();
    await started.stop({ reason: 'user_left' });
    expect((await store.list()).map((e) => e.id)).toEqual([started.id]);
  });
});
