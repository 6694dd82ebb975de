import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { machineLinesIn } from '../../src/store/machine-scan.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const tempDir = tempDirPerTest('troupe-machine-scan-');
const machine = (n: number, maxTurns: number) => `{"n":${n},"machine":{"source":"abc","maxTurns":${maxTurns},"team":{"team":{},"personas":[]}},"events":[],"prev":"0","hash":"1"}`;

describe('machineLinesIn: the machine lines before a checkpoint, from the journal’s bytes', () => {
  it('finds the lines that start as machine lines, up to the line asked, and nothing a line’s text or a nested key says', () => {
    const path = join(tempDir(), 's.jsonl');
    const lines = [
      machine(1, 40),
      // Agent text quoting a machine line: its quotes are escaped.
      `{"n":2,"input":{"type":"user_message","text":"{\\"n\\":3,\\"machine\\":{\\"source\\":\\"x\\"}}"},"events":[]}`,
      // A nested object with the same keys, not at the line's start.
      `{"n":3,"events":[{"n":4,"machine":{"source":"y"}}]}`,
      // Not of a machine line's shape: left out.
      `{"n":4,"machine":{"source":5},"events":[]}`,
      machine(5, 6),
      machine(7, 8),
    ];
    writeFileSync(path, `${lines.join('\n')}\n`);
    expect(machineLinesIn(path, 6).map((r) => [r.n, r.machine?.maxTurns])).toEqual([
      [1, 40],
      [5, 6],
    ]);
    expect(machineLinesIn(path, 7).map((r) => r.n)).toEqual([1, 5, 7]);
    expect(machineLinesIn(path, 0)).toEqual([]);
  });

  it('reads a journal past its first buffer, a torn last line is no machine, and no journal or a link holds none', () => {
    const dir = tempDir();
    const path = join(dir, 's.jsonl');
    const filler = `{"n":2,"input":{"type":"user_message","text":"${'x'.repeat(200 * 1024)}"},"events":[]}`;
    writeFileSync(path, `${machine(1, 40)}\n${filler}\n${machine(3, 9)}\n${machine(4, 10).slice(0, 30)}`);
    expect(machineLinesIn(path, 10).map((r) => r.n)).toEqual([1, 3]);
    expect(machineLinesIn(join(dir, 'none.jsonl'), 10)).toEqual([]);
    mkdirSync(join(dir, 'elsewhere'));
    writeFileSync(join(dir, 'elsewhere', 'j.jsonl'), `${machine(1, 40)}\n`);
    symlinkSync(join(dir, 'elsewhere', 'j.jsonl'), join(dir, 'linked.jsonl'));
    expect(machineLinesIn(join(dir, 'linked.jsonl'), 10)).toEqual([]);
  });
});
