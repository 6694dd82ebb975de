import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { boundedLines, type BoundedLine } from '../../src/cli/bounded-lines.js';
import { cleanEnv, runCli } from '../helpers/cli.js';

async function collect(chunks: string[], limit?: number): Promise<BoundedLine[]> {
  const out: BoundedLine[] = [];
  for await (const l of boundedLines(Readable.from(chunks), limit)) out.push(l);
  return out;
}

describe('boundedLines', () => {
  it('splits lines across chunks, CRLF included, and keeps a last line without newline', async () => {
    expect(await collect(['a b\r\nc', 'd\n\ne', 'f'])).toEqual([{ line: 'a b' }, { line: 'cd' }, { line: '' }, { line: 'ef' }]);
  });

  it('reports a line past the limit by its length without holding it, and goes on with the next', async () => {
    const huge = 'x'.repeat(50);
    expect(await collect([`ok\n${huge.slice(0, 20)}`, `${huge.slice(20)}\nnext\n`], 10)).toEqual([{ line: 'ok' }, { tooLong: 50 }, { line: 'next' }]);
  });
});

describe('a 10 MB piped line', () => {
  it('is skipped with one line, and the session goes on with the next lines', async () => {
    const input = `A lighthouse keeper game\n${'z'.repeat(10_000_000)}\n!status\n`;
    const result = await runCli([], cleanEnv({ TROUPE_DEMO_PACE_MS: '0' }), input);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('! that line is 10,000,000 characters; the limit is 32,000 — it was skipped');
    expect(result.stdout).toContain('[status]');
  });

  it('troupe run refuses a brief past the limit with one line', async () => {
    const result = await runCli(['run', 'b'.repeat(40_000)]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe("troupe: the brief is 40,000 characters; the limit is 32,000 — shorten it to the essentials; long reference material belongs in a persona's prompt file");
  });
});
