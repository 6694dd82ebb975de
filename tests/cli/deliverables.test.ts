import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, testDataDir } from '../helpers/cli.js';

// Issue 25, deliverables: a workflow's files, diffs, verdicts and output are found from every output, not only in the journal.
describe('the deliverables of a workflow run', () => {
  it('troupe run prints where the workspaces are; export (md and json) has the output, the verdicts, the final texts, the workspaces and their diffs', async () => {
    const env = cleanEnv();
    const run = await runCli(['run', '--workflow', 'implement_review_debate', '--input', 'Write a function that adds two numbers', '--demo'], env);
    expect(run.code, run.stderr).toBe(0);
    const id = /session ([0-9a-f-]{36})/.exec(run.stdout + run.stderr)![1]!;
    const root = join(testDataDir(), 'runs', id, 'workspaces');
    for (const branch of ['impl_a', 'impl_b', 'impl_c']) expect(run.stdout).toContain(`  ${branch}: ${join(root, branch)}`);

    const md = await runCli(['export', id], env);
    expect(md.code, md.stderr).toBe(0);
    // A workflow session is named as one: no team, no mode, no turn marked invalid for lack of a directive.
    expect(md.stdout).toContain('| workflow | implement_review_debate |');
    expect(md.stdout).not.toMatch(/\| team \||\| mode \|/);
    expect(md.stdout).not.toContain('(invalid)');
    expect(md.stdout).toContain('## Input');
    expect(md.stdout).toContain('## Deliverables');
    expect(md.stdout).toContain('### Output');
    expect(md.stdout).toMatch(/- review round 1: .+ (agrees|does not agree), (approves|wants changes) — /);
    expect(md.stdout).toContain(`- files: ${join(root, 'impl_a')}`);
    expect(md.stdout).toMatch(/- added `[^`]+`/);
    expect(md.stdout).toMatch(/```diff\n--- \/dev\/null\n\+\+\+ b\//);

    const json = await runCli(['export', id, 'json'], env);
    const doc = JSON.parse(json.stdout) as {
      deliverables: {
        kind: string;
        output: unknown;
        workspaces: { name: string; dir: string; files: unknown[]; diff: string }[];
        decisions: { verdicts: unknown[] };
        finals: { name: string; text: string }[];
      };
    };
    expect(doc.deliverables.kind).toBe('workflow');
    expect(doc.deliverables.output).not.toBe(null);
    expect(doc.deliverables.decisions.verdicts.length).toBeGreaterThan(0);
    expect(doc.deliverables.finals.length).toBeGreaterThan(0);
    expect(doc.deliverables.workspaces.map((w) => w.name)).toEqual(['impl_a', 'impl_b', 'impl_c']);
    for (const w of doc.deliverables.workspaces) {
      expect(existsSync(w.dir)).toBe(true);
      expect(w.files.length).toBeGreaterThan(0);
      // The diff shows what is in the workspace now (the last revision's answer reported it).
      const first = (w.files[0] as { path: string }).path;
      expect(w.diff).toContain(`+++ b/${first}`);
      expect(readFileSync(join(w.dir, first), 'utf8').length).toBeGreaterThan(0);
    }
  }, 60_000);

  it('a team session exports as a team, with its pinned decisions under the deliverables', async () => {
    const env = cleanEnv();
    const run = await runCli(['run', 'A lighthouse keeper game', '--demo'], env);
    const id = /session ([0-9a-f-]{36})/.exec(run.stdout + run.stderr)![1]!;
    const md = await runCli(['export', id], env);
    expect(md.stdout).toMatch(/\| team \| .+ \|/);
    expect(md.stdout).toContain('## Brief');
    expect(md.stdout).toContain('## Deliverables');
    expect(md.stdout).toContain('### Final texts');
    expect(run.stdout).not.toContain('workspaces (');
  }, 60_000);
});
