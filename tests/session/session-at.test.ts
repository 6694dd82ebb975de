// Every reader of a stored session (show, export, fork, the listing, serve's views) reads the machine and names the
// session's journal records at the line it shows (sessionAt), not the team directory as it is when read: a team
// edited after the session ran (a persona renamed or removed, a handoff target dropped) or gone changes nothing shown.
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { displayName } from '../../src/report/names.js';
import { reopenedMachine, storedDefinition, storedSession } from '../../src/serve/view.js';
import { sessionAt, stateAtStep } from '../../src/session/at-step.js';
import { openSession } from '../../src/session/open-session.js';
import { forkSession } from '../../src/store/fork.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { openTeam } from '../../src/team/open-team.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { copiedTeam, demoRun, dropLeadEngineer, editable, editPersona } from '../helpers/edited-team.js';
import { fixedClock, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { ENV } from '../store/support.js';

const tempDir = tempDirPerTest('troupe-session-at-');
const troupe = (dir: string, args: string[]) => runCli(args, cleanEnv({ TROUPE_DATA_DIR: dir }), '', { cwd: dir });

/** Renames the game designer, drops the lead engineer from its handoff targets and removes the CMO (from its major and every persona's targets): the team as a user may edit it after a session ran. */
function editTeam(team: string): void {
  editPersona(team, 'game_designer', (p) => {
    p.name = 'Systems Designer';
    dropLeadEngineer(p);
  });
  rmSync(join(team, 'personas', 'cmo.json'));
  for (const file of readdirSync(join(team, 'personas'))) {
    if (file === 'team.json' || !file.endsWith('.json')) continue;
    editPersona(team, file.slice(0, -5), (p) => {
      p.handoff_to = (p.handoff_to as string[]).filter((t) => t !== 'cmo');
    });
  }
  const teamFile = join(team, 'personas', 'team.json');
  const config = JSON.parse(readFileSync(teamFile, 'utf8')) as { majors: { personas?: string[] }[] };
  for (const major of config.majors) if (major.personas) major.personas = major.personas.filter((p) => p !== 'cmo');
  writeFileSync(teamFile, JSON.stringify(config, null, 2));
}

/**
 * A session run with --max-turns 3, then resumed with 6 (a second machine line naming the first's config) and
 * stopped, its document put back as it was before the resume: as if the resumed process died before its next
 * checkpoint. Its journal's end is turn 9; its checkpoint is turn 3.
 */
async function crashedAfterResume(dir: string, team: string): Promise<{ final: number; checkpointTurn: number }> {
  await demoRun(dir, team, 'limits', 3);
  const doc = join(dir, 'sessions', 'limits.json');
  copyFileSync(doc, `${doc}.before`);
  const session = await openSession({ store: new LowdbStore(dir), resume: 'limits', team, model: new DemoModel(), env: ENV, clock: fixedClock(), memory: false, maxTurns: 6 });
  session.send({ type: 'user_message', text: 'go on, please' });
  await session.settled();
  const final = session.getSnapshot().turn;
  await session.stop();
  copyFileSync(`${doc}.before`, doc);
  rmSync(`${doc}.before`);
  return { final, checkpointTurn: (await new LowdbStore(dir).document('limits')).checkpoint.snapshot.turn };
}

describe('every reader reads the machine and names a session recorded (sessionAt)', () => {
  it('show, export and fork name the personas as the session ran them, after a persona was renamed and another removed', async () => {
    const dir = tempDir();
    const team = copiedTeam(dir);
    await demoRun(dir, team, 'renamed');
    editTeam(team);
    const shown = await troupe(dir, ['show', 'renamed']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('CREATIVE › Game Designer');
    expect(shown.stdout).toContain('STRATEGIC › CMO');
    expect(shown.stdout).not.toContain('Systems Designer');
    const md = (await troupe(dir, ['export', 'renamed', 'md'])).stdout;
    expect(md).toContain('Game Designer');
    expect(md).not.toContain('Systems Designer');
    const steps = (await troupe(dir, ['fork', 'renamed'])).stdout;
    expect(steps).toContain('Game Designer');
    expect(steps).not.toContain('Systems Designer');
  });

  it('troupe sessions and show fold a tail after a resume with another limit with the machine recorded before the checkpoint, the team directory gone', async () => {
    const dir = tempDir();
    const team = copiedTeam(dir);
    const { final, checkpointTurn } = await crashedAfterResume(dir, team);
    expect([checkpointTurn, final]).toEqual([3, 9]);
    rmSync(team, { recursive: true });
    const listed = (await troupe(dir, ['sessions'])).stdout.split('\n');
    expect(listed.find((l) => l.startsWith('limits'))).toMatch(/ 9 +waiting: limit /);
    expect((await troupe(dir, ['show', 'limits'])).stdout.split('\n')[1]).toMatch(/ · 9 turns · waiting: limit$/);
    // serve's view of it: the same state.
    expect(storedSession(await new LowdbStore(dir).read('limits'), studio()).state.turn).toBe(9);
  });

  it('the state at a step is replayed with the machine of each line: the limit the session ran each part under', async () => {
    const dir = tempDir();
    const team = copiedTeam(dir);
    await crashedAfterResume(dir, team);
    const read = await new LowdbStore(dir).read('limits');
    const second = read.records.findLastIndex((r) => r.machine !== undefined);
    expect(second).toBeGreaterThan(0);
    // At the resume's machine line the session waited at the first limit; at the end, at the second.
    expect(stateAtStep(studio().def, read, second)).toMatchObject({ turn: 3, status: 'awaiting_user' });
    expect(stateAtStep(studio().def, read, read.records.length)).toMatchObject({ turn: 9, status: 'awaiting_user' });
    expect(sessionAt(read, () => studio().def, second).def.limits.max_turns).toBe(3);
    expect(sessionAt(read, () => studio().def).def.limits.max_turns).toBe(6);
  });

  it('a fork carries the machine lines: it replays as its source did, after the team was edited', async () => {
    const dir = tempDir();
    const team = copiedTeam(dir);
    await demoRun(dir, team, 'source');
    editTeam(team);
    const store = new LowdbStore(dir);
    const source = await store.read('source');
    await forkSession(store, { from: 'source', step: source.records.length, id: 'forked', now: '2026-01-03T00:00:00.000Z' });
    const fork = await store.read('forked');
    expect(fork.replayGap).toBeUndefined();
    const bare = (events: typeof fork.events) => JSON.stringify(events.map(({ session_id: _s, ...e }) => e));
    expect(bare(fork.events)).toBe(bare(source.events));
    expect(displayName(sessionAt(fork, () => studio().def).def, 'game_designer')).toBe('Game Designer');
  });

  it('serve names a stored session’s personas as it ran them, whatever team the server runs; input is parsed for the team it reopens with', async () => {
    const dir = tempDir();
    const team = copiedTeam(dir);
    await demoRun(dir, team, 'served');
    editTeam(team);
    const server = openTeam(team, {}, ENV);
    const read = await new LowdbStore(dir).read('served');
    expect(displayName(storedDefinition(read, server), 'game_designer')).toBe('Game Designer');
    expect(displayName(storedSession(read, server, 3).def, 'game_designer')).toBe('Game Designer');
    expect(displayName(reopenedMachine(read.doc, server), 'game_designer')).toBe('Systems Designer');
  });
});

describe('troupe sessions and a damaged journal', () => {
  it('a journal damaged before its first checkpoint is listed as unreadable, naming the line, not as a session not started', async () => {
    const dir = tempDir();
    const team = copiedTeam(dir);
    await demoRun(dir, team, 'torn');
    const copy = await editable(dir, 'torn');
    const doc = JSON.parse(readFileSync(copy.path, 'utf8'));
    doc.checkpoint = { ...doc.checkpoint, records: 0, hash: '0'.repeat(doc.checkpoint.hash.length), snapshot: doc.base, usage: null, transitions: {} };
    writeFileSync(copy.path, JSON.stringify(doc));
    const lines = readFileSync(copy.journal, 'utf8').split('\n');
    lines[2] = lines[2]!.replace('"input":{', '"input":{"x":1,');
    writeFileSync(copy.journal, lines.join('\n'));
    const out = await troupe(dir, ['sessions']);
    expect(out.stdout).toMatch(/^! torn: unreadable — .*torn\.jsonl: line 3 .*the journal is damaged/m);
    expect(out.stdout).not.toMatch(/^torn /m);
  });
});
