import { describe, expect, it } from 'vitest';
import { parseProcStat, processInfo } from '../../src/tools/process-info.js';

describe('what /proc says of a process', () => {
  it('reads the state and the start time after the command name, whatever the name holds', () => {
    const rest = 'S 1 1 1 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10';
    expect(parseProcStat(`42 (node) ${rest}`)).toEqual({ state: 'S', startTime: '987654' });
    expect(parseProcStat(`42 (a) (b) c) Z 1 1 1 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 555 1000 10`)).toEqual({ state: 'Z', startTime: '555' });
    expect(parseProcStat('garbage')).toBeNull();
  });

  it('this process runs and has a start time; a pid that does not exist is gone', () => {
    expect(processInfo(process.pid)).toMatchObject({ state: 'running', startTime: expect.stringMatching(/^\d+$/) });
    expect(processInfo(2 ** 30).state).toBe('gone');
    expect(processInfo(-1).state).toBe('gone');
  });
});
