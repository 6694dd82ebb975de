import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../helpers/cli.js';

const data = mkdtempSync(join(tmpdir(), 'troupe-show-limit-'));
afterAll(() => rmSync(data, { recursive: true, force: true }));
const troupe = (args: string[], input = '') => runCli(args, cleanEnv({ TROUPE_DATA_DIR: data }), input, { cwd: data });

describe('show, export and fork read a session run with --max-turns as it ran', () => {
  it('the journal past the checkpoint is stepped under the session’s own turn limit, not the team’s', async () => {
    const run = await troupe(['run', '--demo', 'A lighthouse keeper game', '--max-turns', '2']);
    const id = /session (\S+) saved/.exec(run.stdout)![1]!;
    const doc = join(data, 'sessions', `${id}.json`);
    copyFileSync(doc, `${doc}.at-turn-2`);
    expect((await troupe(['resume', id], '!continue\n')).stdout).toContain('◂ waiting for you: max turns reached (4)');
    // A process that left before its last checkpoint (killed, or its reader closed the pipe): the document is
    // behind the journal, which ends waiting at the limit of turn 4.
    copyFileSync(`${doc}.at-turn-2`, doc);
    const listed = (await troupe(['sessions'])).stdout;
    expect(listed).toMatch(/ 4 +waiting: limit /);
    // Stepped under the team's 40 turns, the journal's turn 4 ran on: show said "interrupted" where sessions says waiting.
    expect((await troupe(['show', id])).stdout.split('\n')[1]).toMatch(/ · 4 turns · waiting: limit$/);
    expect((await troupe(['export', id, 'md'])).stdout).toContain('| status | waiting: limit |');
  });
});
