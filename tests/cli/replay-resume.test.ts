import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { main } from '../../src/cli/main.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';

// Issue 22, item 6: resuming a session that ran from a recording (--replay) silently carried on with the
// demo model (or the real API when a key was set). It must say so and ask.

const dir = mkdtempSync(join(tmpdir(), 'troupe-replay-resume-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const recording = join(dir, 'rec.jsonl');
const savedId = (stdout: string) => /session (\S+) saved/.exec(stdout)![1]!;

/** A diverged replay: a demo session recorded, then replayed on another brief (its first call differs). */
async function divergedReplay(): Promise<string> {
  expect((await runCli(['run', 'a lighthouse game', '--max-turns', '2', '--record', recording])).code).toBe(0);
  const replay = await runCli(['run', 'a tide pool game', '--replay', recording]);
  expect(replay.code).toBe(1);
  expect(replay.stderr).toMatch(/replay diverged at call 1/);
  // The session says what it ran on: the recording, not the model recorded in it.
  expect(replay.stdout.split('\n')[0]).toBe(`troupe · V7 Studio · FSM · replay of ${recording} (recorded on demo model (offline, scripted — set OPENAI_API_KEY for a real model))`);
  return savedId(replay.stdout);
}

describe('resuming a session that ran from a recording', () => {
  it('headless: refused in one line naming the recording and the model it would call; --yes continues', async () => {
    const id = await divergedReplay();
    const refused = await runCli(['resume', id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `troupe: session ${id.slice(0, 8)} ran from the recording ${recording}, which holds nothing past where it stopped: continuing it calls demo model (offline, scripted — set OPENAI_API_KEY for a real model) — add --yes to continue on it, or --demo for the offline demo model`,
    );
    // The replay stopped on its failed call: !continue runs it again, now on the demo model.
    const resumed = await runCli(['resume', id, '--yes'], cleanEnv(), '!continue\n');
    expect(resumed.stderr).toBe('');
    expect(resumed.stdout).toMatch(/▸ CREATIVE › Creative Partner \(turn 1\)/);
  });

  it('on a terminal: asked first; "n" leaves the session as it was', async () => {
    const id = await divergedReplay();
    let stdout = '';
    let stderr = '';
    const code = await main(['resume', id], {
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
      stdin: Readable.from(['n\n']),
      env: cleanEnv(),
      cwd: REPO_ROOT,
      interactive: true,
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('continuing it calls demo model');
    expect(stdout).toContain('Continue on it? [y/N] ');
    expect(stdout.trim().split('\n').at(-1)).toBe(`Continue on it? [y/N] session ${id.slice(0, 8)} was not resumed (it is kept as it was)`);
    // Still waiting where the replay stopped: asking again, headless, is refused the same way.
    expect((await runCli(['resume', id])).stderr).toMatch(/ran from the recording/);
  });
});

describe('--record and --replay name a file as every path option does', () => {
  it("relative to the CLI's working directory (io.cwd), not the process's", async () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const name = `troupe-rec-${process.pid}-${Date.now()}.jsonl`;
    // Before the fix the recording went to the process's directory: removed there, whatever this test says.
    onTestFinished(() => rmSync(join(process.cwd(), name), { force: true }));
    const recorded = await runCli(['run', 'a lighthouse game', '--max-turns', '1', '--record', name], cleanEnv(), '', { cwd });
    expect(recorded.code).toBe(0);
    expect(existsSync(join(process.cwd(), name))).toBe(false);
    expect(existsSync(join(cwd, name))).toBe(true);
    const replayed = await runCli(['run', 'a lighthouse game', '--max-turns', '1', '--replay', name], cleanEnv(), '', { cwd });
    expect({ code: replayed.code, stderr: replayed.stderr }).toEqual({ code: 0, stderr: '' });
    // The session names the recording where it is, so a resume from elsewhere finds it.
    expect(replayed.stdout.split('\n')[0]).toContain(`replay of ${join(cwd, name)} (recorded on demo model`);
  });
});
