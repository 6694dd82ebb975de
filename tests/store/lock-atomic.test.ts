import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Every fs call the lock module makes is followed by a look at the lock file, as a second process
// reading between two calls would see it.
const watch = vi.hoisted(() => ({ path: '', seen: [] as string[] }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const observe = () => {
    if (!watch.path) return;
    try {
      watch.seen.push(real.readFileSync(watch.path, 'utf8'));
    } catch {
      // not there yet
    }
  };
  const wrapped: Record<string, unknown> = { ...real };
  for (const [name, fn] of Object.entries(real)) {
    if (typeof fn === 'function' && name.endsWith('Sync')) {
      wrapped[name] = (...args: unknown[]) => {
        const result = (fn as (...a: unknown[]) => unknown)(...args);
        observe();
        return result;
      };
    }
  }
  return { ...wrapped, default: wrapped };
});

const { acquireLock, releaseLock } = await import('../../src/store/lock.js');

let dir = '';
afterEach(() => {
  if (watch.path) releaseLock(watch.path);
  watch.path = '';
  watch.seen = [];
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('lock file creation', () => {
  it('a lock file holds the pid from the moment it exists', () => {
    dir = fs.mkdtempSync(join(tmpdir(), 'troupe-lock-atomic-'));
    watch.path = join(dir, 's.lock');
    acquireLock(watch.path, 's');
    expect(watch.seen.length).toBeGreaterThan(0);
    for (const text of watch.seen) expect(text).toMatch(new RegExp(`^${process.pid}\\b`));
    expect(fs.readdirSync(dir)).toEqual(['s.lock']);
  });

  it('a stale lock (dead pid) is taken over and rewritten with this pid, never empty', () => {
    dir = fs.mkdtempSync(join(tmpdir(), 'troupe-lock-atomic-'));
    watch.path = join(dir, 's.lock');
    fs.writeFileSync(watch.path, '999999999\n');
    watch.seen = [];
    acquireLock(watch.path, 's');
    expect(watch.seen.every((t) => t.trim() !== '')).toBe(true);
    expect(fs.readFileSync(watch.path, 'utf8')).toMatch(new RegExp(`^${process.pid}\\b`));
    expect(fs.readdirSync(dir)).toEqual(['s.lock']);
  });
});
