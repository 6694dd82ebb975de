import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { step } from '../../src/engine/step.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { studio } from '../helpers/team.js';

const data = mkdtempSync(join(tmpdir(), 'troupe-life-'));
afterAll(() => rmSync(data, { recursive: true, force: true }));
const troupe = (args: string[], input = '') => runCli(args, cleanEnv({ TROUPE_DATA_DIR: data }), input, { cwd: data });

describe('a session across processes', () => {
  it('troupe run --demo, then troupe resume: one session_ended, and the log and the snapshot agree at every step', async () => {
    const run = await troupe(['run', '--demo', 'A lighthouse keeper game']);
    expect(run.code).toBe(0);
    const id = /session (\S+) saved/.exec(run.stdout)![1]!;
    expect(run.stdout).toContain(`continue it with: troupe resume ${id.slice(0, 8)}`);
    // Resuming a waiting session with nothing to say lets go of it again; it is still not over.
    expect((await troupe(['resume', id])).code).toBe(0);
    const approve = await troupe(['resume', id], '!approve\n');
    expect(approve.code).toBe(0);
    expect(approve.stdout).toContain("Session ended: completed: CEO's result approved by the user");
    // An ended session says so, and does not offer to continue it.
    expect(approve.stdout).toContain(`session ${id} saved — it has ended`);

    // show tells what the user typed, not only what the team said.
    expect((await troupe(['show', id])).stdout).toContain('› !approve');
    const { doc, events, records } = await new LowdbStore(data).read(id);
    expect(events.filter((e) => e.type === 'session_ended')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'session_started')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'session_detached').map((e) => (e as { reason: string }).reason)).toEqual(['awaiting_user', 'awaiting_user']);
    // Every step: the state after it tells the same story as the lifecycle events it published.
    const def = studio().def;
    let s = doc.base;
    for (const r of records) {
      if (!r.input) continue;
      s = step(def, s, r.input).session;
      const types = r.events.map((e) => e.type);
      if (types.includes('session_ended')) expect(s.status, JSON.stringify(r.input)).toBe('ended');
      else if (types.includes('awaiting_user')) expect(s.status, JSON.stringify(r.input)).toBe('awaiting_user');
      else if (types.includes('session_detached')) expect(s.status).not.toBe('ended');
      if (s.status === 'ended') expect(types).toContain('session_ended');
    }
    expect(JSON.stringify(s)).toBe(JSON.stringify(doc.checkpoint.snapshot));
    expect(doc.checkpoint.snapshot.status).toBe('ended');
    // Nothing is published after the end.
    expect(events.at(-1)!.seq).toBe(Math.max(...events.map((e) => e.seq)));
    expect(
      events
        .slice(events.findIndex((e) => e.type === 'session_ended') + 1)
        .map((e) => e.type)
        .filter((t) => t !== 'memory_compressed' && t !== 'usage'),
    ).toEqual([]);
  });
});

describe('a session that waits for you, told once', () => {
  it('troupe run and troupe resume say once that the session waits for you, and why; a line read from stdin is answered as before', async () => {
    const run = await troupe(['run', '--demo', 'A lighthouse keeper game', '--max-turns', '2']);
    const id = /session (\S+) saved/.exec(run.stdout)![1]!;
    // troupe run printed "◂ waiting for you: max turns reached (2)", then "Session paused: waiting for you — max turns reached (2)":
    // the pause that lets the session go said again what the ◂ line said. The ◂ line stays, as the UI and resume word it.
    expect(run.stdout.match(/waiting for you/g)).toEqual(['waiting for you']);
    expect(run.stdout).toContain('◂ waiting for you: max turns reached (2)');
    const idle = await troupe(['resume', id]);
    expect(idle.code).toBe(0);
    // The header words the status as troupe sessions does, not the engine's "awaiting_user".
    expect(idle.stdout.split('\n')[0]).toMatch(new RegExp(`^troupe · resuming session ${id} · V7 Studio · FSM · turn 2 · waiting: limit$`));
    expect(idle.stdout).not.toContain('awaiting_user');
    expect(idle.stdout.match(/waiting for you/g)).toEqual(['waiting for you']);
    expect(idle.stdout).toContain('◂ waiting for you: max turns reached (2)');
    expect(idle.stdout).toContain(`session ${id} saved — continue it with: troupe resume ${id.slice(0, 8)}`);
    // With a line to act on, the line is answered; the wait is still told once.
    const asked = await troupe(['resume', id], '!cost\n');
    expect(asked.stdout.match(/waiting for you/g)).toEqual(['waiting for you']);
    expect(asked.stdout).toContain('◂ waiting for you: max turns reached (2)');
    // JSON keeps every event.
    const json = await troupe(['resume', id, '--json']);
    expect(json.stdout.split('\n').filter((l) => l.includes('"session_detached"'))).toHaveLength(1);
  });
});

describe('troupe resume of a workflow session', () => {
  it('words its header as troupe run does: the workflow, no team mode, its input', async () => {
    const run = await troupe(['run', '--workflow', 'clarify_then_write', '--input', 'a small todo app']);
    expect(run.stdout.split('\n').slice(0, 2)).toEqual([expect.stringMatching(/^troupe · workflow clarify_then_write · /), 'Input: a small todo app']);
    const id = /session (\S+) saved/.exec(run.stdout)![1]!;
    const resumed = await troupe(['resume', id], 'families; speed\n');
    expect(resumed.code).toBe(0);
    // It said "· clarify_then_write · FSM · turn 1 · awaiting_user" and "Brief: ...".
    expect(resumed.stdout.split('\n').slice(0, 2)).toEqual([`troupe · resuming session ${id} · workflow clarify_then_write · turn 1 · waiting: question`, 'Input: a small todo app']);
    expect(resumed.stdout).toContain('Session ended: workflow clarify_then_write complete');
  });
});
