import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { bwrapMissing } from '../helpers/jail.js';
import { limitedCommand } from '../../src/tools/jail.js';
import { DEFAULT_TOOL_LIMITS, type ToolLimits } from '../../src/tools/limits.js';
import { createToolset } from '../../src/tools/toolset.js';

// probe13: a command an allowed program runs (the shipped roles allow `node`) held 3 GiB of the machine's
// memory in the jail, and could write one file as large as the disk: the jail bounded /tmp, nothing else.
const temp = tempDirPerTest('troupe-jail-resources-');
const MiB = 1024 * 1024;

/** Allocates `total` MiB in 32 MiB pieces, touching every page, and says how much it held. */
const HOG = (total: number) => `node -e "const held=[];try{for(let i=0;i<${total / 32};i++)held.push(Buffer.alloc(${32 * MiB},1))}catch(e){console.log(e.name)}console.log('held',held.length*32)"`;

describe('limitedCommand', () => {
  it('runs the command as written after the limits, in the shells’ units (KiB of memory, 512-byte blocks of file)', () => {
    const argv = limitedCommand(['node', '-e', '"; rm -rf / #'], { memoryBytes: 256 * MiB, fileBytes: MiB, processes: 64 });
    expect(argv.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(argv.slice(3)).toEqual(['sh', String(256 * 1024), '2048', '64', 'node', '-e', '"; rm -rf / #']);
  });
});

describe.skipIf(bwrapMissing)('a jailed command is held to its resources', () => {
  const run = (command: string, limits: Partial<ToolLimits> = {}) => {
    const ws = temp();
    const tools = createToolset({ workspace: ws, commands: { mode: 'allow', allow: ['node', 'sh', 'cat'] }, limits });
    return { ws, result: tools.run({ name: 'run_command', arguments: JSON.stringify({ command }) }) };
  };

  it('memory: a program that allocates without end gets an allocation failure at the limit, not the machine', async () => {
    const { result } = run(HOG(512), { commandMemoryBytes: 256 * MiB });
    const content = (await result).content;
    expect(content).toMatch(/RangeError/);
    expect(Number(/held (\d+)/.exec(content)?.[1])).toBeLessThan(256);
  });

  it('a file: writing past the largest file a command may write stops the write at the limit', async () => {
    const { ws, result } = run(`sh -c 'head -c ${3 * MiB} /dev/zero > big'`, { commandFileBytes: MiB });
    expect((await result).content).toBe('exit code 153\nFile size limit exceeded\n');
    expect(statSync(join(ws, 'big')).size).toBe(MiB);
  });

  it('the limits are the kernel’s for every process of the command (soft and hard), with no core dumps; the defaults as documented', async () => {
    const { result } = run(`sh -c 'cat /proc/self/limits'`);
    const limits = (await result).content;
    const row = (name: string) => new RegExp(`^${name}\\s+(\\S+)\\s+(\\S+)`, 'm').exec(limits)?.slice(1);
    expect(row('Max data size')).toEqual([String(DEFAULT_TOOL_LIMITS.commandMemoryBytes), String(DEFAULT_TOOL_LIMITS.commandMemoryBytes)]);
    expect(row('Max file size')).toEqual([String(DEFAULT_TOOL_LIMITS.commandFileBytes), String(DEFAULT_TOOL_LIMITS.commandFileBytes)]);
    expect(row('Max processes')).toEqual([String(DEFAULT_TOOL_LIMITS.commandProcesses), String(DEFAULT_TOOL_LIMITS.commandProcesses)]);
    expect(row('Max core file size')).toEqual(['0', '0']);
    expect(readFileSync('/proc/self/limits', 'utf8')).not.toBe(limits);
  });

  // The kernel holds no process of root (uid 0) to RLIMIT_NPROC, in any user namespace; as any other user the jail's count is its own.
  it.skipIf(process.getuid?.() === 0)('processes: a command that forks without end cannot start more than its limit', async () => {
    const { result } = run(`sh -c 'i=0; while [ $i -lt 40 ]; do sleep 1 & i=$((i+1)); done; wait'`, { commandProcesses: 16 });
    expect((await result).content).toMatch(/Cannot fork|Resource temporarily unavailable/);
  });
});
