import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwrapMissing } from '../helpers/jail.js';
import { REPO_ROOT } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-inherited-fd-');
const CHILD = join(REPO_ROOT, 'tests', 'fixtures', 'jail', 'inherited-fd-child.ts');
/** Past 15 and after a gap: Node leaves such an inherited descriptor inheritable (uv_disable_stdio_inheritance stops at the first gap). */
const HIGH_FD = 40;

/** Runs the child fixture with HIGH_FD open for appending on `outside`; the run_command answer it printed. */
function runWithDescriptor(workspace: string, outside: string): Promise<{ ok: boolean; content: string }> {
  const fd = openSync(outside, 'a');
  const stdio: (string | number)[] = ['ignore', 'pipe', 'pipe', ...Array.from({ length: HIGH_FD - 3 }, () => 'ignore'), fd];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, workspace, String(HIGH_FD)], { cwd: REPO_ROOT, stdio: stdio as never });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d));
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => {
      closeSync(fd);
      if (code !== 0) reject(new Error(`child exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout) as { ok: boolean; content: string });
    });
  });
}

describe.skipIf(bwrapMissing)('a descriptor troupe inherited without close-on-exec', () => {
  it('does not reach a jailed command: it cannot write to a file outside through it, nor see it', async () => {
    const base = temp();
    const outside = join(base, 'outside.log');
    writeFileSync(outside, 'before\n');
    const workspace = join(base, 'ws');
    mkdirSync(workspace);
    const result = await runWithDescriptor(workspace, outside);
    expect(result.ok, result.content).toBe(true);
    const report = JSON.parse(result.content.split('\n')[1]!) as { wrote: string; fds: string[] };
    expect(readFileSync(outside, 'utf8')).toBe('before\n');
    expect(report.wrote).not.toBe('yes');
    expect(report.fds.join(' ')).not.toContain(outside);
  });
});
