import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transformSync } from 'esbuild';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { describe, expect, it } from 'vitest';
import { capYoungGeneration, type YoungGenerationControl } from '../../src/serve/young-generation.js';

const MIB = 1024 * 1024;

/** A young generation the test sizes by hand, recording the growth factors set. */
function handYoung(): YoungGenerationControl & { size: number; factors: number[]; scavenge(size: number): void } {
  let check = () => undefined as void;
  const young = {
    size: 2 * MIB,
    factors: [] as number[],
    sizeBytes: () => young.size,
    growthFactor: (f: number) => void young.factors.push(f),
    afterScavenges: (c: () => void) => {
      check = c;
      return () => undefined;
    },
    scavenge(size: number) {
      young.size = size;
      check();
    },
  };
  return young;
}

describe('capYoungGeneration', () => {
  const tempDir = tempDirPerTest();

  it('lets the young generation grow to the cap, stops its growth there, and lets it grow again if V8 shrinks it', () => {
    const young = handYoung();
    capYoungGeneration(8, young);
    expect(young.factors).toEqual([2]);
    young.scavenge(4 * MIB);
    expect(young.factors).toEqual([2]);
    young.scavenge(8 * MIB);
    expect(young.factors).toEqual([2, 1]);
    young.scavenge(8 * MIB);
    expect(young.factors).toEqual([2, 1]);
    young.scavenge(2 * MIB);
    expect(young.factors).toEqual([2, 1, 2]);
  });

  // V8 reads --max-semi-space-size once, when the heap is made; the cap works in a process already running
  // (`troupe serve` is started by the launcher, which passes no V8 flags), as a child process shows. It runs
  // plain Node (the module compiled here): tsx's own start grows the young generation before any script runs.
  it('keeps a running process from growing its young generation past the cap while objects survive', () => {
    const dir = tempDir();
    const module = join(dir, 'young-generation.mjs');
    writeFileSync(module, transformSync(readFileSync(join(import.meta.dirname, '../../src/serve/young-generation.ts'), 'utf8'), { loader: 'ts', format: 'esm' }).code);
    const script = `
      import { getHeapSpaceStatistics } from 'node:v8';
      import { capYoungGeneration } from ${JSON.stringify(pathToFileURL(module).href)};
      if (process.argv[1] === 'cap') capYoungGeneration(4);
      const kept = [];
      for (let burst = 0; burst < 40; burst++) {
        for (let i = 0; i < 1000; i++) kept.push({ list: new Array(20).fill(i), text: 'reader ' + i + burst });
        await new Promise((r) => setImmediate(r));
      }
      process.stdout.write(String(getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size));
    `;
    const youngAfter = (arg: string) => Number(execFileSync(process.execPath, ['--input-type=module', '-e', script, arg], { encoding: 'utf8' }));
    expect(youngAfter('none')).toBeGreaterThan(4 * MIB);
    expect(youngAfter('cap')).toBeLessThanOrEqual(4 * MIB);
  });
});
