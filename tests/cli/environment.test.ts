import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportError } from '../../src/cli/main.js';
import { ConfigError } from '../../src/config/issues.js';
import { UserError } from '../../src/errors.js';
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

  // plantrust's note: a refusal quotes names from a session document (a workflow source, an agent id), which a forged
  // one can fill with newlines and make the one-line error several lines, the later ones looking like troupe's own.
  it('a user, config or internal error is one line whatever the names it quotes hold', () => {
    const user = io({});
    expect(reportError(new UserError('workflow.plan.agents.a\ntroupe: all good: is more than x.json gives now'), user)).toBe(1);
    expect(user.err()).toBe('troupe: workflow.plan.agents.a\u2424troupe: all good: is more than x.json gives now\n');
    const config = io({});
    expect(reportError(new ConfigError([{ file: 'team\n.json', field: 'majors', problem: 'bad', fix: 'fix it' }]), config)).toBe(1);
    expect(config.err()).toBe('team\u2424.json: majors: bad — fix it\n');
    const internal = io({});
    reportError(new Error('a\r\nb'), internal);
    expect(internal.err()).toBe('troupe: internal error: a\u240d\u2424b\n');
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

  it('TROUPE_LIVE_URL is where serve --backend restate tells workers to push deltas (sent with a new session)', async () => {
    // A stand-in for the Restate ingress on loopback: it records what serve sends and answers nothing useful.
    const bodies: string[] = [];
    const ingress = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        bodies.push(`${req.url} ${body}`);
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"stand-in"}');
      });
    });
    await new Promise<void>((resolve) => ingress.listen(0, '127.0.0.1', resolve));
    const ingressUrl = `http://127.0.0.1:${(ingress.address() as AddressInfo).port}`;
    const env = cleanEnv({ TROUPE_RESTATE_URL: ingressUrl, TROUPE_LIVE_URL: 'http://workers-reach-me.test:4810/live' });
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), 'serve', '--backend', 'restate', '--port', '0'], { env, cwd: REPO_ROOT });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out.split('\n')[0]!);
        });
        child.on('close', () => reject(new Error('serve exited')));
      });
      await fetch(new URL('/v1/sessions', url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ brief: 'a lighthouse game' }) });
      expect(bodies.some((b) => b.includes('http://workers-reach-me.test:4810/live'))).toBe(true);
    } finally {
      child.kill('SIGTERM');
      await new Promise<void>((resolve) => ingress.close(() => resolve()));
    }
  });
});
