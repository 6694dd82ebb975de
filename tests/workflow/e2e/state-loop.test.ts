import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv } from '../../helpers/cli.js';
import { REPO_ROOT } from '../../helpers/team.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';
import { ofType, runJson, statesEntered } from '../../helpers/workflow-run.js';

const LOOP = join(REPO_ROOT, 'tests', 'fixtures', 'workflows', 'hostile', 'state-loop.json');
const temp = tempDirPerTest('troupe-state-loop-');
const LINE = 'state_loop: check → fix → check … 50 state entries without an agent turn (max_state_entries 50); !continue to go on';

describe('a workflow whose states only run scripts, in a cycle', () => {
  it('pauses with one line naming the loop (--max-turns 5: 50 state entries); the journal stays small; !continue runs one more round', async () => {
    const dir = temp();
    const env = cleanEnv({ TROUPE_DATA_DIR: dir });
    const run = await runJson(['run', '--workflow', LOOP, '--input', 'x', '--demo', '--max-turns', '5'], env);
    expect(run.code).toBe(0);
    expect(ofType(run.events, 'awaiting_user').map((e) => [e.code, e.reason])).toEqual([['limit', LINE]]);
    expect(ofType(run.events, 'session_detached')[0]).toMatchObject({ reason: 'awaiting_user', detail: LINE });
    expect(statesEntered(run.events)).toHaveLength(51);
    const journal = join(dir, 'sessions', `${run.id}.jsonl`);
    // Two evaluations per state (its script, its transitions), each one journal record of a few hundred bytes.
    const records = readFileSync(journal, 'utf8').trim().split('\n').length;
    expect(records).toBeLessThanOrEqual(2 * 50 + 3);
    expect(statSync(journal).size).toBeLessThan(64 * 1024);

    const resumed = await runJson(['resume', run.id, '--demo'], env, '!continue\n');
    expect(resumed.code).toBe(0);
    expect(statesEntered(resumed.events)).toHaveLength(50);
    expect(ofType(resumed.events, 'awaiting_user').map((e) => e.reason)).toEqual([LINE]);
    expect(readFileSync(journal, 'utf8').trim().split('\n').length).toBeLessThanOrEqual(2 * (2 * 50 + 3));
  }, 60_000);
});
