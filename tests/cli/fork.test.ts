import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, testDataDir } from '../helpers/cli.js';

// Issue 25, time travel: `troupe fork <id> --at <step>` (the original is never changed).
describe('troupe fork', () => {
  it('lists the steps, forks at one and goes on there with other input; the original stays byte for byte', async () => {
    const env = cleanEnv();
    const run = await runCli(['run', 'A lighthouse keeper game', '--demo'], env);
    const id = /session ([0-9a-f-]{36})/.exec(run.stdout + run.stderr)![1]!;
    const files = ['json', 'jsonl'].map((ext) => join(testDataDir(), 'sessions', `${id}.${ext}`));
    const before = files.map((f) => readFileSync(f, 'utf8'));

    const steps = await runCli(['fork', id.slice(0, 8)], env);
    expect(steps.code, steps.stderr).toBe(0);
    expect(steps.stdout).toMatch(/^ +\d+ {2}Brief: A lighthouse keeper game$/m);
    const waits = [...steps.stdout.matchAll(/^ *(\d+) {2}.+ answered$/gm)].map((m) => Number(m[1]));
    const at = waits[2]!;

    const forked = await runCli(['fork', id, '--at', String(at), '--demo'], env, 'Make it a lighthouse on Mars\n');
    expect(forked.code, forked.stderr).toBe(0);
    const newId = /as ([0-9a-f-]{36});/.exec(forked.stdout)![1]!;
    expect(forked.stdout).toContain(`forked session ${id} at step ${at} as ${newId}; ${id.slice(0, 8)} stays as it is`);
    const json = JSON.parse((await runCli(['export', newId, 'json'], env)).stdout) as { forkedFrom: unknown; events: { type: string; text?: string }[] };
    expect(json.forkedFrom).toEqual({ id, step: at });
    expect(json.events.some((e) => e.type === 'user_input' && e.text === 'Make it a lighthouse on Mars')).toBe(true);
    expect(files.map((f) => readFileSync(f, 'utf8'))).toEqual(before);
    expect((await runCli(['export', newId], env)).stdout).toContain(`| forked from | ${id} at step ${at} |`);
  }, 60_000);

  it('refuses a step that is not a number or not in the session, in one line', async () => {
    const env = cleanEnv();
    const run = await runCli(['run', 'A short one', '--demo'], env);
    const id = /session ([0-9a-f-]{36})/.exec(run.stdout + run.stderr)![1]!;
    const word = await runCli(['fork', id, '--at', 'three'], env);
    expect(word.code).toBe(2);
    expect(word.stderr.split('\n')[0]).toBe('troupe: --at must be a step number (troupe fork <id> lists them), got "three"');
    const far = await runCli(['fork', id, '--at', '99999'], env);
    expect(far.code).toBe(1);
    expect(far.stderr).toMatch(/^troupe: step 99999 is not a step of session [0-9a-f-]+: it has steps 0 to \d+ — troupe fork [0-9a-f]{8} lists them\n$/);
  }, 60_000);
});
