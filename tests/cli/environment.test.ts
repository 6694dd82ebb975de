import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportError } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';

// Issue 22, item 7: every variable the README documents is checked by a test. These are the ones no other
// test read: each is shown to change what troupe does.

function io(env: Record<string, string>): CliIo & { err: () => string } {
  let err = '';
  return { stdout: { write: () => true }, stderr: { write: (t: string) => (err += t) }, stdin: process.stdin, env, cwd: REPO_ROOT, interactive: false, err: () => err };
}

/** Starts `node dist/cli.js args` and resolves with its first `lines` lines of stdout, then stops it (SIGTERM). */
function firstLines(args: string[], env: NodeJS.ProcessEnv, lines: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), ...args], { env, cwd: REPO_ROOT });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.split('\n').length > lines) child.kill('SIGTERM');
    });
    child.on('error', reject);
    child.on('close', () => (out.split('\n').length > lines ? resolve(out.split('\n').slice(0, lines)) : reject(new Error(`exited early: ${err}`))));
  });
}

describe('documented variables', () => {
  it('TROUPE_DEBUG prints the stack of an internal error (exit 70); without it, one line', () => {
    const quiet = io({});
    expect(reportError(new Error('boom'), quiet)).toBe(70);
    expect(quiet.err()).toBe('troupe: internal error: boom\n');
    const debug = io({ TROUPE_DEBUG: '1' });
    expect(reportError(new Error('boom'), debug)).toBe(70);
    expect(debug.err()).toMatch(/^troupe: internal error: boom\nError: boom\n\s+at /);
  });

  it("TROUPE_SERVE_MAX_SESSIONS is read by troupe serve (a bad value is refused with serve's usage)", async () => {
    const { code, stderr } = await runCli(['serve', '--port', '0'], cleanEnv({ TROUPE_SERVE_MAX_SESSIONS: '0' }));
    expect(code).toBe(2);
    expect(stderr.split('\n').slice(0, 2)).toEqual(['troupe: TROUPE_SERVE_MAX_SESSIONS must be a whole number >= 1, got "0"', expect.stringMatching(/^usage: troupe serve /)]);
    const lines = await firstLines(['serve', '--port', '0'], cleanEnv({ TROUPE_SERVE_MAX_SESSIONS: '7' }), 2);
    expect(lines[1]).toContain('at most 7 sessions');
  });

  it('TROUPE_RESTATE_URL names the Restate ingress of serve --backend restate; TROUPE_RESTATE_POLL_MS is checked', async () => {
    const lines = await firstLines(['serve', '--backend', 'restate', '--port', '0'], cleanEnv({ TROUPE_RESTATE_URL: 'http://127.0.0.1:1/' }), 2);
    expect(lines[1]).toContain('sessions on Restate at http://127.0.0.1:1 ');
    const { code, stderr } = await runCli(['serve', '--backend', 'restate', '--port', '0'], cleanEnv({ TROUPE_RESTATE_POLL_MS: '5' }));
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe('troupe: TROUPE_RESTATE_POLL_MS must be a whole number >= 10, got "5"');
  });
});
