import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue } from '../../src/config/issues.js';
import { loadTeam } from '../../src/config/load-team.js';
import { parseCli } from '../../src/cli/args.js';
import { cleanEnv, runCli, runCliProcess } from '../helpers/cli.js';
import { completion, fakeServerPerTest } from '../helpers/fake-openai-server.js';
import { REPO_ROOT } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const TEAMS = join(REPO_ROOT, 'tests', 'fixtures', 'teams');
const temp = tempDirPerTest('troupe-hostile-team-');

/** A copy of the tiny base team with a hostile variant laid over it (symlinks copied as symlinks). */
function team(variant?: string): string {
  const root = temp();
  const dir = join(root, 'team');
  cpSync(join(TEAMS, 'base'), dir, { recursive: true });
  if (variant) overlay(join(TEAMS, variant), dir);
  return dir;
}

function overlay(from: string, to: string): void {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory() && statSync(target, { throwIfNoEntry: false })?.isDirectory()) {
      overlay(source, target);
      continue;
    }
    rmSync(target, { recursive: true, force: true });
    cpSync(source, target, { recursive: true, verbatimSymlinks: true });
  }
}

const lines = (dir: string) => loadTeam(dir).issues.map(formatIssue);
const PASSWD = readFileSync('/etc/passwd', 'utf8').split('\n')[0]!;

describe('team files stay inside the team directory', () => {
  it('the base fixture is a valid team', () => {
    expect(lines(team())).toEqual([]);
  });

  it('a prompt path out of prompts/ ("../../../../etc/passwd") is refused, never read', () => {
    const dir = team('traversal');
    const result = loadTeam(dir);
    expect(result.team).toBeNull();
    expect(result.issues.map(formatIssue)).toEqual([
      expect.stringMatching(new RegExp(`^${join(dir, 'personas', 'alpha.json')}: prompt: "\\.\\./.*etc/passwd" is outside ${join(dir, 'prompts')} — keep the file inside`)),
    ]);
    expect(JSON.stringify(result)).not.toContain(PASSWD);
  });

  it('a prompt that is a symlink out of the team is refused', () => {
    expect(lines(team('symlink-prompt'))).toEqual([expect.stringMatching(/alpha\.json: prompt: "alpha\.md" leads outside .*prompts \(a symlink\) — keep the file itself inside/)]);
  });

  it('a persona file symlinked out of the team is refused (the directory listing does not follow it out)', () => {
    const dir = team();
    const outside = join(dir, '..', 'gamma.json');
    writeFileSync(outside, JSON.stringify({ id: 'gamma', name: 'Gamma', major: 'TEAM', prompt: 'alpha.md', description: 'outside' }));
    symlinkSync(outside, join(dir, 'personas', 'gamma.json'));
    expect(lines(dir)).toEqual([expect.stringMatching(/personas\/gamma\.json: \(root\): ".*gamma\.json" leads outside .* \(a symlink\)/)]);
  });

  it('a FIFO prompt is refused without hanging, and a directory prompt is one line, exit 1 (not 70)', async () => {
    const fifo = team();
    unlinkSync(join(fifo, 'prompts', 'alpha.md'));
    execFileSync('mkfifo', [join(fifo, 'prompts', 'alpha.md')]);
    expect(lines(fifo)).toEqual([expect.stringMatching(/alpha\.json: prompt: alpha\.md is not a regular file \(a FIFO, socket or device\)/)]);
    const directory = team('directory-prompt');
    const out = await runCliProcess(['validate', '--team', directory], cleanEnv());
    expect(out.code).toBe(1);
    expect(out.stderr.split('\n')[0]).toMatch(/alpha\.json: prompt: alpha\.md is a directory, not a file — name a file$/);
    expect(out.stderr).not.toMatch(/internal error|EISDIR/);
  });

  it('a persona with the id "user" is refused (the id routes to the human)', () => {
    expect(lines(team('persona-user'))).toEqual(expect.arrayContaining([expect.stringMatching(/user\.json: id: "user" is the human \(the user state\), not a persona: choose another id/)]));
  });

  it('unknown keys in arbiter.weights and arbiter.default_criteria are refused', () => {
    expect(lines(team('loose-arbiter'))).toEqual([
      expect.stringMatching(/team\.json: arbiter\.weights: Unrecognized key: "urgnecy" — remove "urgnecy"/),
      expect.stringMatching(/team\.json: arbiter\.default_criteria: Unrecognized key: "cost" — remove "cost"/),
    ]);
  });

  it('a turn limit beyond any session is refused, in team.json and on the command line; a stored session always loads', async () => {
    const limits = lines(team('huge-turns'));
    expect(limits).toEqual(expect.arrayContaining([expect.stringMatching(/team\.json: limits\.max_turns: .* — use a value <= 1000000$/)]));
    expect(limits.every((l) => l.includes('limits.max_turns'))).toBe(true);
    for (const bad of ['99999999999999999999', '1000001', '1e3', '0', '2.5']) {
      expect(() => parseCli(['run', 'x', '--max-turns', bad]), bad).toThrow(`--max-turns must be a whole number from 1 to 1000000, got "${bad}"`);
    }
    expect(parseCli(['run', 'x', '--max-turns', '1000000']).maxTurns).toBe(1000000);
    const env = cleanEnv({ TROUPE_DEMO_PACE_MS: '0' });
    const huge = await runCli(['run', '--demo', '--max-turns', '99999999999999999999', 'x'], env);
    expect(huge.code).toBe(2);
    const run = await runCli(['run', '--demo', '--max-turns', '1000000', 'A lighthouse keeper game'], env);
    expect(run.code).toBe(0);
    expect((await runCli(['show'], env)).code).toBe(0);
  });

  it('--team problems name the files as given (absolute for an absolute --team), and a missing directory "does not exist"', async () => {
    const dir = team();
    writeFileSync(join(dir, 'personas', 'beta.json'), '{ "id": "beta", "name": 7 }');
    const out = await runCli(['validate', '--team', dir], cleanEnv(), '', { cwd: join(dir, 'prompts') });
    expect(out.stderr.split('\n')[0]).toMatch(new RegExp(`^${join(dir, 'personas', 'beta.json')}: `));
    const missing = join(dir, 'nope');
    const gone = await runCli(['run', '--demo', '--team', missing, 'x'], cleanEnv());
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe(`${missing}: (root): does not exist — point --team at a directory holding personas/team.json and prompts/\n`);
    mkdirSync(join(dir, 'empty'));
    expect((await runCli(['validate', '--team', join(dir, 'empty')], cleanEnv())).stderr).toMatch(/empty: personas\/: no personas directory/);
  });
});

describe('the directories troupe reads a team from are inside the team', () => {
  const fake = fakeServerPerTest();
  const modelEnv = (baseURL: string) => cleanEnv({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'test', TROUPE_MODEL: 'test-model' });

  it('prompts/ that is itself a symlink out of the team (to /etc): validate refuses it in one line; a run sends nothing', async () => {
    const dir = team('symlink-prompts-dir');
    const line = `${dir}: prompts/: prompts/ leads outside ${dir} (a symlink) — make prompts/ a directory inside ${dir}, not a link out of it`;
    expect(lines(dir)).toEqual([line]);
    const validated = await runCli(['validate', '--team', dir], cleanEnv());
    expect(validated.code).toBe(1);
    expect(validated.stderr.split('\n')[0]).toBe(line);
    const server = await fake([{ body: completion('I read it', { transition: 'COMPLETE' }) }]);
    const run = await runCli(['run', '--team', dir, 'A lighthouse keeper game'], modelEnv(server.baseURL));
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe(line);
    expect(server.requests).toEqual([]);
    expect(run.stdout + run.stderr).not.toContain(PASSWD);
  });

  it('personas/ symlinked out of the team: one line, and nothing of the outside team reaches the model server', async () => {
    const dir = team();
    const outside = join(dir, '..', 'outside-personas');
    cpSync(join(dir, 'personas'), outside, { recursive: true });
    writeFileSync(join(outside, 'beta.json'), JSON.stringify({ id: 'beta', name: 'Beta', major: 'TEAM', prompt: 'beta.md', handoff_to: ['alpha'], description: 'OUTSIDE-PERSONA-MARKER' }));
    rmSync(join(dir, 'personas'), { recursive: true });
    symlinkSync(outside, join(dir, 'personas'));
    const line = `${dir}: personas/: personas/ leads outside ${dir} (a symlink) — make personas/ a directory inside ${dir}, not a link out of it`;
    expect(lines(dir)).toEqual([line]);
    const server = await fake([{ body: completion('hello', { transition: 'COMPLETE' }) }]);
    const run = await runCli(['run', '--team', dir, 'A lighthouse keeper game'], modelEnv(server.baseURL));
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe(line);
    expect(server.requests).toEqual([]);
    // The committed fixture: personas/ a symlink to /etc.
    const etc = team('symlink-personas-dir');
    expect(lines(etc)).toEqual([`${etc}: personas/: personas/ leads outside ${etc} (a symlink) — make personas/ a directory inside ${etc}, not a link out of it`]);
  });

  it('the same team with real directories runs against the same server (the refusals are about the links)', async () => {
    const server = await fake([{ body: completion('A first draft.', { transition: 'COMPLETE' }) }]);
    const run = await runCli(['run', '--team', team(), 'A lighthouse keeper game'], modelEnv(server.baseURL));
    expect(run.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(server.requests[0]!.body)).toContain('You are Alpha. You draft.');
  });
});
