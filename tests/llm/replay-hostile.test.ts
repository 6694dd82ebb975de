import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, runCliChild } from '../helpers/cli.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { MAX_RECORDING_BYTES } from '../../src/llm/recording.js';

// probe13: `troupe run --replay` read whatever it was given whole: a FIFO blocked it for good, /dev/zero took
// 4.5 GB of memory in 20 s (the machine's, until it ran out), and a recording of any size was read and split.
const temp = tempDirPerTest('troupe-replay-hostile-');

describe('--replay reads only a regular file of a recording’s size', () => {
  it('a FIFO: refused at once in one line (it blocked the process for good)', () => {
    const dir = temp();
    const fifo = join(dir, 'calls.jsonl');
    execFileSync('mkfifo', [fifo]);
    const run = runCliChild(['run', '--replay', fifo, 'a brief'], cleanEnv({ TROUPE_DATA_DIR: join(dir, 'data') }), { cwd: dir, timeoutMs: 30_000 });
    expect(run.signal).toBeNull();
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(`troupe: the recording ${fifo} is not a regular file (a directory, FIFO or device) — give --replay a file written by --record`);
  });

  it('a device (/dev/zero) and a directory: refused in one line, nothing read', async () => {
    const dir = temp();
    for (const path of ['/dev/zero', dir]) {
      const run = await runCli(['run', '--replay', path, 'a brief'], cleanEnv({ TROUPE_DATA_DIR: join(dir, 'data') }), '', { cwd: dir });
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(`troupe: the recording ${path} is not a regular file (a directory, FIFO or device) — give --replay a file written by --record`);
    }
  });

  it('a (sparse) file past the largest recording: refused by its size, not read', async () => {
    const dir = temp();
    mkdirSync(join(dir, 'data'));
    const file = join(dir, 'huge.jsonl');
    const fd = openSync(file, 'w');
    ftruncateSync(fd, MAX_RECORDING_BYTES + 1);
    closeSync(fd);
    const run = await runCli(['run', '--replay', file, 'a brief'], cleanEnv({ TROUPE_DATA_DIR: join(dir, 'data') }), '', { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(`troupe: the recording ${file} is ${MAX_RECORDING_BYTES + 1} bytes, more than troupe writes (${MAX_RECORDING_BYTES}) — give --replay a file written by --record`);
  });
});
