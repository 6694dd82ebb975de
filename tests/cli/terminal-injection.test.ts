import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, testDataDir } from '../helpers/cli.js';
import { ACTIVE, ALL_HOSTILE, HOSTILE } from '../helpers/hostile-text.js';
import { REPO_ROOT } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { storedDocumentText } from '../helpers/stored-document.js';

const temp = tempDirPerTest('troupe-inject-');
const env = () => cleanEnv({ TROUPE_DEMO_PACE_MS: '0' });

describe('nothing from a session reaches the terminal as a control sequence', () => {
  it('run, show, export md and sessions print the hostile brief (echoed by the demo personas) made safe; the stored session keeps it raw', async () => {
    const run = await runCli(['run', '--demo', ALL_HOSTILE], env());
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('visible hidden instructions end');
    const id = /session (\S+) saved/.exec(run.stdout)![1]!;
    const outputs = [run.stdout, run.stderr];
    for (const args of [['show', id], ['export', id], ['export', id, 'md'], ['sessions']]) {
      const out = await runCli(args, env());
      expect(out.code, args.join(' ')).toBe(0);
      outputs.push(out.stdout, out.stderr);
    }
    for (const text of outputs) expect(text).not.toMatch(ACTIVE);
    // The sessions table cuts the brief after it is made safe: no half sequence.
    const stored = JSON.parse(storedDocumentText(join(testDataDir(), 'sessions', `${id}.json`)));
    expect(stored.brief).toBe(ALL_HOSTILE);
  });

  it('--json and export json stay valid JSON with every control escaped, holding the raw text', async () => {
    const json = await runCli(['run', '--demo', '--json', ALL_HOSTILE], env());
    expect(json.stdout).not.toMatch(ACTIVE);
    const events = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events[0]).toMatchObject({ type: 'session_started', brief: ALL_HOSTILE });
    const exported = await runCli(['export', events[0].session_id, '--format', 'json'], env());
    expect(exported.stdout).not.toMatch(ACTIVE);
    expect(JSON.parse(exported.stdout).brief).toBe(ALL_HOSTILE);
  });

  it('error lines and the workflows list are made safe too', async () => {
    const bad = await runCli(['show', `x${HOSTILE.osc52_clipboard}`], env());
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/is not a session id/);
    expect(bad.stderr).not.toMatch(ACTIVE);
    const cwd = temp();
    mkdirSync(join(cwd, 'workflows'));
    const flow = JSON.parse(readFileSync(join(REPO_ROOT, 'workflows', 'linear_analysis.json'), 'utf8'));
    flow.name = 'evil';
    flow.description = `${HOSTILE.osc0_title} ${HOSTILE.cr_overwrite}`;
    writeFileSync(join(cwd, 'workflows', 'evil.json'), JSON.stringify(flow));
    cpSync(join(REPO_ROOT, 'workflows', 'roles.json'), join(cwd, 'workflows', 'roles.json'));
    const listed = await runCli(['workflows'], env(), '', { cwd });
    expect(listed.stdout).toContain('evil');
    expect(listed.stdout).not.toMatch(ACTIVE);
    expect(readdirSync(join(cwd, 'workflows'))).toContain('evil.json');
  });
});
