import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArrivalGate } from '../../helpers/arrival-gate.js';
import { cleanEnv } from '../../helpers/cli.js';
import { implementer, implementerReply, implFile, reviewerScripts, TIER_MODELS } from '../../helpers/debate-script.js';
import type { FakeReply, RecordedRequest } from '../../helpers/fake-openai-server.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';
import { messagesOf, ofType, roleOf, roleServerPerTest, runJson, toolsOf, type RoleStep } from '../../helpers/workflow-run.js';

const BRANCHES = ['impl_a', 'impl_b', 'impl_c'];
const IMPLEMENTERS = ['implementer_a', 'implementer_b', 'implementer_c'];
const REVIEWERS = ['reviewer_a', 'reviewer_b'];
const temp = tempDirPerTest('troupe-debate-');

const serveRoles = roleServerPerTest();

// Concurrency is proven by gates, not by timing: a branch's first call of a fan-out (and a reviewer's
// independent review) is held at the server until every sibling's has arrived, so a gate opens only if all
// of them were in flight together; a run that sent them one after another would leave its gate shut.
const isFirstOfTurn = (req: RecordedRequest) => messagesOf(req).at(-1)?.role !== 'tool';

/** Implementer `x`, its first call of each fan-out held at that fan-out's gate. */
const gatedImplementer = (x: string, gates: ArrivalGate[]): RoleStep[] => {
  let fanouts = 0;
  return [
    async (req) => {
      if (isFirstOfTurn(req)) await gates[fanouts++]!.pass(`implementer_${x}`);
      return implementerReply(x, req);
    },
  ];
};

/** A reviewer's script, the calls at `independent` (its round-1 reviews) held at that debate's gate. */
const gatedReviewer = (who: string, gates: Map<number, ArrivalGate>): RoleStep[] =>
  reviewerScripts[who]!.map((step, n) => {
    const gate = gates.get(n);
    if (!gate) return step;
    return async () => {
      await gate.pass(who);
      return step as FakeReply;
    };
  });

const userText = (req: Parameters<typeof messagesOf>[0]) =>
  messagesOf(req)
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');

describe('implement_review_debate against a local server: three implementers on three models, two reviewers', () => {
  it('branches write files at once (all three in flight together), independent first reviews at once, two debate rounds to consensus, one revision, approval', async () => {
    const fanouts = [new ArrivalGate(IMPLEMENTERS), new ArrivalGate(IMPLEMENTERS)];
    // reviewer_a's and reviewer_b's calls #1 and #3 are the independent first rounds of the two debates.
    const debates = new Map([
      [0, new ArrivalGate(REVIEWERS)],
      [2, new ArrivalGate(REVIEWERS)],
    ]);
    const server = await serveRoles({
      implementer_a: gatedImplementer('a', fanouts),
      implementer_b: gatedImplementer('b', fanouts),
      implementer_c: gatedImplementer('c', fanouts),
      reviewer_a: gatedReviewer('reviewer_a', debates),
      reviewer_b: gatedReviewer('reviewer_b', debates),
    });
    const data = temp();
    const run = await runJson(
      ['run', '--workflow', 'implement_review_debate', '--input', 'implement bech32 in Zig'],
      cleanEnv({ OPENAI_BASE_URL: server.baseURL, TROUPE_DATA_DIR: data, ...TIER_MODELS }),
    );
    expect(server.unexpected).toEqual([]);
    expect(run.code).toBe(0);

    // Three different models, one per implementer.
    expect(IMPLEMENTERS.map((r) => [...new Set(server.of(r).map((q) => (q.body as { model: string }).model))])).toEqual([['model-a'], ['model-b'], ['model-c']]);
    expect(toolsOf(server.of('implementer_a')[0]!)).toEqual(expect.arrayContaining(['write_file', 'read_file', 'edit_file', 'list_files', 'search_files', 'run_command']));

    // Concurrency: in both fan-outs the three branches were in flight together (each gate opened on its
    // third arrival, no reply having left before), and so were the two independent reviews of each debate.
    const gates = { 'implement fan-out': fanouts[0]!, 'revise fan-out': fanouts[1]!, 'first debate, round 1': debates.get(0)!, 'second debate, round 1': debates.get(2)! };
    for (const [name, gate] of Object.entries(gates)) {
      expect({ gate: name, arrivals: [...gate.arrivals].sort(), opened: gate.opened }).toEqual({ gate: name, arrivals: [...gate.expected].sort(), opened: true });
    }
    // Each branch is a tool round trip per fan-out: write_file, then its summary after the tool's result.
    for (const r of IMPLEMENTERS) expect(server.of(r).map((q) => isFirstOfTurn(q))).toEqual([true, false, true, false]);

    // Each implementer's file, revised, in its own workspace under the session's run directory.
    for (const x of ['a', 'b', 'c']) expect(readFileSync(join(data, 'runs', run.id, 'workspaces', `impl_${x}`, 'bech32.zig'), 'utf8')).toBe(implFile(x, 2));

    // The reviewers get every implementation's summary and diff, and review them independently first (at once,
    // neither seeing the other); from round 2 each reads the others' whole messages and verdicts (seed 002).
    const [first, second] = server.of('reviewer_a');
    const firstB = server.of('reviewer_b')[0]!;
    for (const x of ['a', 'b', 'c']) {
      expect(userText(first!)).toContain(`## Implementation ${x.charCodeAt(0) - 96} of 3: impl_${x} (implementer_${x})`);
      expect(userText(first!)).toContain(`+// impl_${x} v1`);
      expect(userText(first!)).toContain(`impl_${x}: bech32.zig v1 written.`);
    }
    for (const review of [first!, firstB]) expect(userText(review)).not.toContain('The debate so far');
    expect(userText(second!)).toContain('Round 2 of at most 3');
    expect(userText(second!)).toContain('### Round 1, reviewer_b\nI would approve impl_a as is.\n(verdict: agree true, approve false');
    expect(userText(server.of('reviewer_b')[1]!)).toContain('### Round 2, reviewer_a\nAgreed with B: checksum tests, then ship.');
    // After the revision, the reviewers see the new diffs.
    const third = server.of('reviewer_a')[2]!;
    for (const x of ['a', 'b', 'c']) expect(userText(third)).toContain(`+test "checksum ${x}" {}`);
    expect(toolsOf(third)).toEqual(['review_verdict']);

    // Round 1's two reviews ran at once (the gates above): they come back in either order.
    const verdicts = ofType(run.events, 'verdict').map((v) => `${v.round}:${v.reviewer}:${v.agree}:${v.approve}`);
    expect([...verdicts.slice(0, 2)].sort()).toEqual(['1:reviewer_a:false:false', '1:reviewer_b:true:false']);
    expect(verdicts.slice(2, 4)).toEqual(['2:reviewer_a:true:false', '2:reviewer_b:true:false']);
    expect([...verdicts.slice(4)].sort()).toEqual(['1:reviewer_a:true:true', '1:reviewer_b:true:true']);
    expect(ofType(run.events, 'debate_ended')).toEqual([
      expect.objectContaining({ rounds: 2, consensus: true, approve: false, synthesised: false }),
      expect.objectContaining({ rounds: 1, consensus: true, approve: true, synthesised: false }),
    ]);
    expect(ofType(run.events, 'joined').map((j) => [j.state, j.done, j.failed])).toEqual([
      ['implement', BRANCHES, []],
      ['revise', BRANCHES, []],
    ]);
    const ended = ofType(run.events, 'session_ended');
    expect(ended).toHaveLength(1);
    expect(ended[0]!.reason).toBe('workflow implement_review_debate complete: approved after 1 revision(s)');
    expect(ended[0]!.output).toMatchObject({ approved: true, revisions: 1, ranking: ['impl_a', 'impl_b', 'impl_c'], implementations: BRANCHES });
  }, 90_000);

  it("one implementer's model answers 500 every time (no retries): the join goes on with two, the scenario completes", async () => {
    const onModelC = (req: Parameters<typeof roleOf>[0]) => ((req.body as { model: string }).model === 'model-c' ? 'model-c' : roleOf(req));
    const server = await serveRoles(
      { 'model-c': [{ status: 500, body: { error: { message: 'model-c is down' } } }], implementer_a: implementer('a', 0), implementer_b: implementer('b', 0), ...reviewerScripts },
      onModelC,
    );
    const data = temp();
    const run = await runJson(
      ['run', '--workflow', 'implement_review_debate', '--input', 'implement bech32 in Zig'],
      cleanEnv({ OPENAI_BASE_URL: server.baseURL, TROUPE_DATA_DIR: data, TROUPE_RETRIES: '0', ...TIER_MODELS }),
    );
    expect(server.unexpected).toEqual([]);
    expect(run.code).toBe(0);
    const joined = ofType(run.events, 'joined');
    expect(joined.map((j) => [j.state, j.done, j.failed.map((f: { branch: string }) => f.branch), j.outcome])).toEqual([
      ['implement', ['impl_a', 'impl_b'], ['impl_c'], 'continue'],
      ['revise', ['impl_a', 'impl_b'], ['impl_c'], 'continue'],
    ]);
    expect(joined[0]!.failed[0].error).toMatch(/500|model-c is down/);
    // The reviewers are told the branch failed, and still get the other two diffs.
    const review = userText(server.of('reviewer_a', onModelC)[0]!);
    expect(review).toMatch(/impl_c \(implementer_c\)\n\nThis implementation failed: /);
    expect(review).toContain('+// impl_a v1');
    expect(existsSync(join(data, 'runs', run.id, 'workspaces', 'impl_c', 'bech32.zig'))).toBe(false);
    expect(readFileSync(join(data, 'runs', run.id, 'workspaces', 'impl_b', 'bech32.zig'), 'utf8')).toBe(implFile('b', 2));
    expect(ofType(run.events, 'session_ended')[0]!.reason).toBe('workflow implement_review_debate complete: approved after 1 revision(s)');
  }, 90_000);
});
