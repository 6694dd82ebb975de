import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, testDataDir } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';

/** Runs the built CLI with its stdout closed by the reader at once (`troupe ... | head` that already exited). */
function withClosedReader(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), ...args], { env: cleanEnv({ TROUPE_DEMO_PACE_MS: '0' }), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('a reader that closes the pipe', () => {
  it('troupe run | head: exits quietly (no EPIPE stack trace) and the session stays saved', async () => {
    const { code, stderr } = await withClosedReader(['run', '--demo', 'A lighthouse keeper game']);
    expect(stderr).not.toMatch(/EPIPE|Error|at /);
    expect(code).toBe(0);
    expect(readdirSync(join(testDataDir(), 'sessions')).filter((f) => f.endsWith('.jsonl')).length).toBe(1);
    // The listing and show tell where the run got to, not "not started · 0 turns": every step was checkpointed as it happened.
    const [, row] = (await runCli(['sessions'])).stdout.trim().split('\n');
    expect(row).toMatch(/ 10 +waiting: complete /);
    expect((await runCli(['show'])).stdout.split('\n')[1]).toMatch(/ · 10 turns · waiting: complete$/);
  });

  it('troupe sessions | head and troupe show | head exit quietly too', async () => {
    for (const args of [['sessions'], ['show']]) {
      const { code, stderr } = await withClosedReader(args);
      expect(stderr, args[0]).not.toMatch(/EPIPE|at /);
      expect(code, args[0]).toBe(0);
    }
  });
});
