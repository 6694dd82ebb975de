import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LowdbStore } from '../../../src/store/lowdb-store.js';
import { cleanEnv } from '../../helpers/cli.js';
import type { Child } from '../../helpers/child.js';
import { cliProcess, killServedWorkflow, printedEvents, stableTranscript, storedEvents } from '../../helpers/crash-run.js';
import { implementer, implementerReply, reviewerScripts, TIER_MODELS } from '../../helpers/debate-script.js';
import { REPO_ROOT } from '../../helpers/team.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';
import { ofType, roleServerPerTest, runJson, type RoleStep } from '../../helpers/workflow-run.js';

const temp = tempDirPerTest('troupe-wf-crash-');
const BRANCHES = ['impl_a', 'impl_b', 'impl_c'];
const children: Child[] = [];
const serveRoles = roleServerPerTest();
beforeAll(() => {
  if (!existsSync(join(REPO_ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run npm run build first');
});
afterEach(async () => {
  for (const c of children.splice(0)) await c.kill('SIGKILL');
});

describe('SIGKILL in the middle of a workflow, then `troupe resume`: the same end as an uninterrupted run', () => {
  it('hierarchical_development on the paced demo (troupe serve), killed while the sub-workflow coder answers', async () => {
    const input = 'a shared shopping list';
    const reference = await runJson(['run', '--workflow', 'hierarchical_development', '--input', input, '--demo'], cleanEnv({ TROUPE_DATA_DIR: temp() }));
    expect(reference.code).toBe(0);

    // Killed once the second coder turn of the sub-workflow streams its first words.
    const data = temp();
    const env = cleanEnv({ TROUPE_DATA_DIR: data, TROUPE_DEMO_PACE_MS: '15' });
    const { id, seen } = await killServedWorkflow(env, 'hierarchical_development', input, (events) => {
      const coder = events.filter((e) => e.type === 'agent_started' && e.path === 'implementation_with_review.code');
      return coder.length === 2 && events.some((e) => e.type === 'agent_delta' && e.turn_id === (coder[1] as { turn_id: string }).turn_id);
    });
    const inFlight = seen.filter((e) => e.type === 'agent_started').at(-1) as { turn_id: string };
    expect(seen.some((e) => e.type === 'agent_message' && e.turn_id === inFlight.turn_id)).toBe(false);

    const resumed = await runJson(['resume', id, '--demo'], env);
    expect(resumed.code).toBe(0);
    // The turn in flight is re-run first; nothing already answered is asked again.
    expect(ofType(resumed.events, 'agent_started')[0]).toMatchObject({ path: 'implementation_with_review.code', persona: 'coder' });
    expect(ofType(resumed.events, 'agent_started')).toHaveLength(4);
    const all = await storedEvents(data, id);
    expect(stableTranscript(all)).toEqual(stableTranscript(reference.events));
    expect(new LowdbStore(data).lockedBy(id)).toBeNull();
    expect(ofType(all, 'session_ended')).toEqual([expect.objectContaining({ reason: 'workflow hierarchical_development complete', output: ofType(reference.events, 'session_ended')[0]!.output })]);
  }, 60_000);

  it('implement_review_debate on the paced demo, killed while a branch streams after writing its file: the same transcript and files', async () => {
    const input = 'implement bech32 in Zig';
    const refData = temp();
    const reference = await runJson(['run', '--workflow', 'implement_review_debate', '--input', input, '--demo'], cleanEnv({ TROUPE_DATA_DIR: refData }));
    expect(reference.code).toBe(0);

    // A branch's words stream only after its write_file ran: the kill lands mid-turn, its file already written.
    const data = temp();
    const env = cleanEnv({ TROUPE_DATA_DIR: data, TROUPE_DEMO_PACE_MS: '15' });
    const { id, seen } = await killServedWorkflow(env, 'implement_review_debate', input, (events) => events.some((e) => e.type === 'agent_delta' && 'branch' in e && 'text' in e));
    expect(seen.filter((e) => e.type === 'tool_call' && e.tool === 'write_file' && e.phase === 'finished').length).toBeGreaterThan(0);
    expect(seen.filter((e) => e.type === 'joined')).toEqual([]);

    const resumed = await runJson(['resume', id, '--demo'], env);
    expect(resumed.code).toBe(0);
    const all = await storedEvents(data, id);
    expect(stableTranscript(all)).toEqual(stableTranscript(reference.events));
    for (const b of BRANCHES) {
      const file = (dir: string, session: string) => readFileSync(join(dir, 'runs', session, 'workspaces', b, 'solution.zig'), 'utf8');
      expect(file(data, id)).toBe(file(refData, reference.id));
    }
    expect(ofType(all, 'session_ended')[0]!.output).toEqual(ofType(reference.events, 'session_ended')[0]!.output);
  }, 60_000);

  it('implement_review_debate killed mid fan-out (two branches done, one in flight): on resume only that branch re-runs', async () => {
    const input = 'implement bech32 in Zig';
    const scripts = (hold: Promise<never> | null): Record<string, RoleStep[]> => ({
      ...reviewerScripts,
      implementer_a: implementer('a', 0),
      implementer_b: implementer('b', 0),
      implementer_c: [(req, n) => (n === 0 && hold ? hold : implementerReply('c', req))],
    });
    let server = await serveRoles(scripts(null));
    const reference = await runJson(['run', '--workflow', 'implement_review_debate', '--input', input], cleanEnv({ OPENAI_BASE_URL: server.baseURL, TROUPE_DATA_DIR: temp(), ...TIER_MODELS }));
    expect(reference.code).toBe(0);
    await server.stop();

    // implementer_c's first call is held by the server: it is in flight when the process is killed.
    server = await serveRoles(scripts(new Promise<never>(() => {})));
    const data = temp();
    const env = cleanEnv({ OPENAI_BASE_URL: server.baseURL, TROUPE_DATA_DIR: data, ...TIER_MODELS });
    const run = cliProcess('run', ['run', '--workflow', 'implement_review_debate', '--input', input, '--json'], env);
    children.push(run);
    await run.waitFor(/"type":"agent_message".*"branch":"impl_a"/);
    await run.waitFor(/"type":"agent_message".*"branch":"impl_b"/);
    expect(server.of('implementer_c')).toHaveLength(1);
    await run.kill('SIGKILL');
    const before = printedEvents(run);
    const id = String(before[0]!.session_id);
    expect(ofType(before, 'joined')).toEqual([]);

    const resumed = await runJson(['resume', id], env);
    expect(resumed.code).toBe(0);
    expect(server.unexpected).toEqual([]);
    const firstJoin = resumed.events.findIndex((e) => e.type === 'joined');
    expect(ofType(resumed.events.slice(0, firstJoin), 'agent_started').map((e) => e.branch)).toEqual(['impl_c']);
    expect(resumed.events[firstJoin]).toMatchObject({ state: 'implement', done: ['impl_a', 'impl_b', 'impl_c'], failed: [] });
    // impl_a and impl_b were each asked twice (write, then summary) before the kill, and not again until the revision.
    expect(server.of('implementer_a')).toHaveLength(4);
    expect(server.of('implementer_c')).toHaveLength(1 + 4);

    const all = await storedEvents(data, id);
    expect(stableTranscript(all)).toEqual(stableTranscript(reference.events));
    expect(ofType(all, 'session_ended')).toEqual([
      expect.objectContaining({ reason: ofType(reference.events, 'session_ended')[0]!.reason, output: ofType(reference.events, 'session_ended')[0]!.output }),
    ]);
  }, 60_000);
});
