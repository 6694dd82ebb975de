import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSessionFile } from '../../src/store/load-file.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { REPO_ROOT } from '../helpers/team.js';
import { comparable, uninterrupted } from './support.js';

const RUNS = 12;
const CLI = join(REPO_ROOT, 'dist', 'cli.js');
const CHILD = join(REPO_ROOT, 'tests', 'store', 'crash-child.ts');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A small seeded generator (mulberry32), so the kill points are the same on every run of the test. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs the child until it has printed `events` non-delta events, waits `jitterMs`, then SIGKILLs it. */
function runAndKill(dataDir: string, id: string, events: number, jitterMs: number): Promise<{ seen: number; finished: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, id, '15'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let seen = 0;
    let buffer = '';
    let armed = false;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (!line.includes('"type":"agent_delta"')) seen += 1;
      if (!armed && seen >= events) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), jitterMs);
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL' && code !== 0) reject(new Error(`child failed (${code}): ${stderr}`));
      else resolve({ seen, finished: signal !== 'SIGKILL' });
    });
  });
}

describe('crash and resume', () => {
  it(`SIGKILL at ${RUNS} seeded points: the file parses and resume reaches the uninterrupted final state`, async () => {
    const reference = (await uninterrupted(new MemoryStore(), 'ref')).final;
    const random = seeded(6);
    const outcomes: string[] = [];
    for (let run = 0; run < RUNS; run++) {
      const dataDir = mkdtempSync(join(tmpdir(), 'troupe-crash-'));
      dirs.push(dataDir);
      const id = `crash-${run}`;
      const killAt = 1 + Math.floor(random() * 85);
      const jitter = Math.floor(random() * 25);
      const { finished } = await runAndKill(dataDir, id, killAt, jitter);
      const path = join(dataDir, 'sessions', `${id}.json`);
      const before = parseSessionFile(readFileSync(path, 'utf8'), path).file.snapshot;
      outcomes.push(`${killAt}+${jitter}ms: turn ${before.turn} ${before.status}${finished ? ' (finished before the kill)' : ''}`);
      const resumed = spawnSync(process.execPath, [CLI, 'resume', id, '--demo', '--json'], { cwd: dataDir, env: { ...process.env, TROUPE_DATA_DIR: dataDir }, encoding: 'utf8' });
      expect(resumed.stderr).toContain(`session ${id} saved`);
      expect(resumed.status).toBe(0);
      const after = parseSessionFile(readFileSync(path, 'utf8'), path).file;
      expect(comparable(after.snapshot)).toEqual(comparable(reference));
      expect(after.snapshot.transcript).toEqual(reference.transcript);
      expect(existsSync(join(dataDir, 'sessions', `${id}.lock`))).toBe(false);
    }
    // The kills must really land mid-session in most runs, or the test proves little.
    expect(outcomes.filter((o) => o.includes('running')).length, outcomes.join('\n')).toBeGreaterThanOrEqual(RUNS / 2);
  }, 180_000);
});
