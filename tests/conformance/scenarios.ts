import { join } from 'node:path';
import { expect } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { implementer } from '../helpers/debate-script.js';
import type { FakeReply, RecordedRequest } from '../helpers/fake-openai-server.js';
import { TaggedScript, type TaggedTurn } from '../helpers/tagged-script.js';
import { reply, roleOf, type RoleStep } from '../helpers/workflow-run.js';
import { Gate } from './gate.js';
import { gapless, type Scenario, type Script } from './harness.js';

const of = (events: TroupeEvent[], type: string) => events.filter((e) => e.type === type) as (TroupeEvent & Record<string, unknown>)[];
const count = (type: string, n: number) => (events: TroupeEvent[]) => of(events, type).length >= n;
const ended = (events: TroupeEvent[]) => events.some((e) => e.type === 'session_ended');
/** A reply held back far longer than any test runs: the call is in flight until something aborts it. */
const HELD_MS = 120_000;

/** Answers each workflow role from its own script, in order (one step: every call). */
function roles(scripts: Record<string, RoleStep[]>): Script {
  const counts = new Map<string, number>();
  return (req) => {
    const role = roleOf(req);
    const n = counts.get(role) ?? 0;
    counts.set(role, n + 1);
    const script = scripts[role];
    const step = script?.length === 1 ? script[0] : script?.[n];
    if (!step) return { status: 500, body: { error: { message: `no scripted answer for ${role} call #${n + 1}` } } };
    return typeof step === 'function' ? step(req, n) : step;
  };
}

const tagged = (tag: string, turns: TaggedTurn[]): Script => new TaggedScript({ [tag]: turns }).reply;
const isTagged = (tag: string) => (req: RecordedRequest) => JSON.stringify(req.body).includes(`[[tag ${tag}]]`);

const verdict = (text: string, approve: boolean): FakeReply =>
  reply(text, { name: 'review_verdict', arguments: { agree: true, approve, feedback: approve ? 'ship it' : 'more tests', ranking: ['impl_a', 'impl_c', 'impl_b'] } });

/** The scenarios, each run on every backend; their events must be the same apart from timestamps. */
export const SCENARIOS: Scenario[] = [
  {
    name: 'a team story: three persona turns, the user replies, two more turns',
    script: () => tagged('story', [{ next: 'game_designer' }, { next: 'lead_engineer' }, { transition: 'RESPOND_TO_USER' }, { next: 'creative_partner' }, { transition: 'RESPOND_TO_USER' }]),
    async run(d) {
      const id = await d.create({ brief: 'A lighthouse keeper game [[tag story]]' });
      await d.until(id, count('awaiting_user', 1));
      expect((await d.input(id, 'Make the keeper older [[tag story]]')).status).toBe(202);
      return d.until(id, count('awaiting_user', 2));
    },
    check(events) {
      expect(of(events, 'agent_message').map((e) => e.persona)).toEqual(['creative_partner', 'game_designer', 'lead_engineer', 'lead_engineer', 'creative_partner']);
      expect(gapless(events)).toBe(true);
    },
  },
  {
    name: 'a workflow with a sub-workflow: hierarchical_development runs coder_reviewer on contexts of its own',
    script: () =>
      roles({
        product_manager: [reply('PM-ANALYSIS: families add items.'), reply('PM-FINAL: approved.')],
        architect: [reply('ARCH-SPEC: a client and a sync service.'), reply('ARCH-REVIEW: adheres to the spec.')],
        coder: [reply('CODE-V1: list CRUD.'), reply('CODE-V2: list CRUD and live sync.')],
        reviewer: [
          reply('Missing sync.', { name: 'review_work', arguments: { improvement_needed: true, continue_message: 'FIX: add live sync.' } }),
          reply('Done.', { name: 'review_work', arguments: { improvement_needed: false, work_summary: 'WORK-SUMMARY: CRUD and sync' } }),
        ],
      }),
    async run(d) {
      const id = await d.create({ workflow: 'hierarchical_development', input: 'a shared shopping list for families' });
      return d.until(id, ended);
    },
    check(events) {
      expect(of(events, 'agent_message').map((e) => e.persona)).toEqual(['product_manager', 'architect', 'coder', 'reviewer', 'coder', 'reviewer', 'architect', 'product_manager']);
      expect(of(events, 'session_ended')).toEqual([expect.objectContaining({ reason: 'workflow hierarchical_development complete', output: 'PM-FINAL: approved.' })]);
      expect(gapless(events)).toBe(true);
    },
  },
  (() => {
    const scripts: Record<string, RoleStep[]> = {
      implementer_a: implementer('a', 0),
      implementer_b: [{ status: 400, body: { error: { message: 'scripted failure of implementer_b' } } }],
      implementer_c: implementer('c', 0),
      reviewer_a: [verdict('impl_a and impl_c both work.', true)],
      reviewer_b: [verdict('Agreed.', true)],
    };
    let gate: Gate;
    const step = (role: string, req: RecordedRequest, n: number) => {
      const s = scripts[role]!;
      const at = s.length === 1 ? s[0]! : s[n]!;
      return typeof at === 'function' ? at(req, n) : at;
    };
    const scenario: Scenario = {
      name: 'a fan-out with a failed branch: two implementers write files in tool loops, one fails, the reviewers debate what came back',
      script: () => (gate = new Gate(new Set(['implementer_a', 'implementer_b', 'implementer_c', 'reviewer_a', 'reviewer_b']), step, (req) => roleOf(req))).script,
      async run(d) {
        const id = await d.create({ workflow: 'implement_review_debate', input: 'implement bech32 in Zig' });
        // The branches run at once; their answers come back in this order, each once the one before is applied.
        const applied = (check: (e: TroupeEvent & Record<string, unknown>) => boolean) => d.until(id, (events) => events.some((e) => check(e as TroupeEvent & Record<string, unknown>)));
        await gate.release('implementer_b', 1);
        await applied((e) => e.type === 'transition' && e.to === 'implement.impl_b.done');
        await gate.release('implementer_a', 1);
        await applied((e) => e.type === 'tool_call' && e.branch === 'impl_a' && e.phase === 'finished');
        await gate.release('implementer_a', 2);
        await applied((e) => e.type === 'agent_message' && e.branch === 'impl_a');
        await gate.release('implementer_c', 1);
        await applied((e) => e.type === 'tool_call' && e.branch === 'impl_c' && e.phase === 'finished');
        await gate.release('implementer_c', 2);
        // The first reviews are independent and run at once (seed 002): their answers come back in this order too.
        await gate.release('reviewer_a', 1);
        await applied((e) => e.type === 'agent_message' && e.persona === 'reviewer_a');
        await gate.release('reviewer_b', 1);
        return d.until(id, ended);
      },
      check(events) {
        expect(of(events, 'joined')[0]).toMatchObject({
          done: ['impl_a', 'impl_c'],
          failed: [{ branch: 'impl_b', error: expect.stringContaining('scripted failure of implementer_b') }],
          outcome: 'continue',
        });
        expect(
          of(events, 'tool_call')
            .filter((e) => e.phase === 'finished')
            .map((e) => `${e.branch}:${e.tool}:${e.ok}`),
        ).toEqual(['impl_a:write_file:true', 'impl_c:write_file:true']);
        expect(of(events, 'session_ended')).toEqual([expect.objectContaining({ reason: expect.stringContaining('complete') })]);
        expect(gapless(events)).toBe(true);
      },
    };
    return scenario;
  })(),
  {
    name: 'a branch that runs out of time: its call is cut off at the time limit and the join goes on without it',
    script: () => roles({ implementer_a: [reply('quick: done.')], implementer_b: [{ body: {}, delayMs: HELD_MS }] }),
    async run(d) {
      const id = await d.create({ workflow: join(import.meta.dirname, 'workflows', 'branch_timeout.json'), input: 'implement bech32' });
      const events = await d.until(id, ended);
      await d.request('the late call to be cut off', (r) => roleOf(r) === 'implementer_b' && r.hungUp === true);
      return events;
    },
    check(events) {
      expect(of(events, 'joined')).toEqual([expect.objectContaining({ done: ['quick'], failed: [{ branch: 'late', error: 'timed out after 2000 ms' }], outcome: 'continue' })]);
      expect(gapless(events)).toBe(true);
    },
  },
  {
    name: 'an interjection while a persona answers: its call is aborted, the persona answers the interjection',
    script: () => tagged('interject', [{ next: 'game_designer', delayFirstMs: HELD_MS }, { transition: 'RESPOND_TO_USER' }]),
    async run(d) {
      const id = await d.create({ brief: 'A lighthouse keeper game [[tag interject]]' });
      await d.request('the first call', isTagged('interject'));
      expect((await d.input(id, 'Make it cosy [[tag interject]]')).status).toBe(202);
      return d.until(id, count('awaiting_user', 1));
    },
    check(events, d) {
      expect(d.model.requests[0]!.hungUp).toBe(true);
      expect(of(events, 'agent_started').map((e) => `${e.persona}:${e.inbox}`)).toEqual(['creative_partner:brief', 'creative_partner:interjection', 'game_designer:handoff']);
      expect(of(events, 'agent_message').map((e) => e.persona)).toEqual(['creative_partner', 'game_designer']);
      expect(gapless(events)).toBe(true);
    },
  },
  {
    name: '!handoff while a persona answers: its call is aborted, the named persona takes the turn',
    script: () => tagged('handoff', [{ transition: 'RESPOND_TO_USER', delayFirstMs: HELD_MS }]),
    async run(d) {
      const id = await d.create({ brief: 'A lighthouse keeper game [[tag handoff]]' });
      await d.request('the first call', isTagged('handoff'));
      expect((await d.input(id, '!handoff lead_engineer')).status).toBe(202);
      return d.until(id, count('awaiting_user', 1));
    },
    check(events, d) {
      expect(d.model.requests[0]!.hungUp).toBe(true);
      expect(of(events, 'agent_started').map((e) => `${e.persona}:${e.inbox}`)).toEqual(['creative_partner:brief', 'lead_engineer:user_requested']);
      expect(of(events, 'agent_message').map((e) => e.persona)).toEqual(['lead_engineer']);
      expect(gapless(events)).toBe(true);
    },
  },
  {
    name: 'resume: the user leaves (!quit) while a persona answers, comes back with a line; the turn in flight is re-run, then interjected',
    script: () => tagged('resume', [{ next: 'game_designer', delayFirstMs: HELD_MS }, { transition: 'RESPOND_TO_USER' }]),
    async run(d) {
      const id = await d.create({ brief: 'A lighthouse keeper game [[tag resume]]' });
      await d.request('the first call', isTagged('resume'));
      expect(await d.input(id, '!quit')).toEqual({ status: 200, body: { kind: 'quit' } });
      await d.until(id, count('session_detached', 1));
      expect((await d.input(id, 'Go on [[tag resume]]')).status).toBe(202);
      return d.until(id, count('awaiting_user', 1));
    },
    check(events) {
      expect(of(events, 'session_detached')).toEqual([expect.objectContaining({ reason: 'user_left' })]);
      expect(of(events, 'note').map((e) => e.text)).toContainEqual(expect.stringMatching(/^session resumed at turn 0 \(re-running Creative Partner's turn \S+, which was in flight\)$/));
      expect(of(events, 'agent_started').map((e) => `${e.persona}:${e.inbox}`)).toEqual(['creative_partner:brief', 'creative_partner:brief', 'creative_partner:interjection', 'game_designer:handoff']);
      expect(gapless(events)).toBe(true);
    },
  },
];
