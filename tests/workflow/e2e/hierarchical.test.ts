import { describe, expect, it } from 'vitest';
import { cleanEnv } from '../../helpers/cli.js';
import { dialogueOf, messagesOf, ofType, reply, roleServerPerTest, runJson, statesEntered, transitionsOf } from '../../helpers/workflow-run.js';

const REQUIREMENTS = 'a shared shopping list for families';
// Every answer carries a marker, so a test can tell where each one travelled.
const PM_ANALYSIS = 'PM-ANALYSIS: families add items, see them live, tick them off.';
const SPEC = 'ARCH-SPEC: a React client, a websocket sync service, Postgres.';
const SUMMARY = 'WORK-SUMMARY: list CRUD and live sync, reviewed twice';
const ARCH_REVIEW = 'ARCH-REVIEW: adheres to the spec; add rate limits later.';
const PM_FINAL = 'PM-FINAL: approved, it meets the business requirements.';

const serveRoles = roleServerPerTest();

describe('hierarchical_development with coder_reviewer as its sub-workflow, against a local server', () => {
  it('PM → architect → coder/reviewer (isolated) → architect → PM: states, contexts, sub_workflow_result and the output', async () => {
    const server = await serveRoles({
      product_manager: [reply(PM_ANALYSIS), reply(PM_FINAL)],
      architect: [reply(SPEC), reply(ARCH_REVIEW)],
      coder: [reply('CODE-V1: list CRUD.'), reply('CODE-V2: list CRUD and live sync.')],
      reviewer: [
        reply('Missing sync.', { name: 'review_work', arguments: { improvement_needed: true, continue_message: 'FIX: add live sync.' } }),
        reply('Done.', { name: 'review_work', arguments: { improvement_needed: false, work_summary: SUMMARY } }),
      ],
    });

    const run = await runJson(['run', '--workflow', 'hierarchical_development', '--input', REQUIREMENTS], cleanEnv({ OPENAI_BASE_URL: server.baseURL }));
    expect(run.code).toBe(0);
    expect(server.unexpected).toEqual([]);

    const sub = 'implementation_with_review';
    expect(statesEntered(run.events)).toEqual([
      'start',
      'business_analysis',
      'technical_specification',
      sub,
      `${sub}.code`,
      `${sub}.review`,
      `${sub}.code`,
      `${sub}.review`,
      `${sub}.stop`,
      `${sub}.__done`,
      'architecture_review',
      'final_approval',
      'stop',
    ]);
    expect(transitionsOf(run.events)).toContain(`${sub}.stop -> ${sub}.__done`);
    expect(transitionsOf(run.events)).toContain(`${sub}.__done -> architecture_review`);
    expect(ofType(run.events, 'agent_message').map((e) => e.persona)).toEqual(['product_manager', 'architect', 'coder', 'reviewer', 'coder', 'reviewer', 'architect', 'product_manager']);

    // The sub-workflow runs on its own contexts: the coder gets the architect's spec as its task and
    // never anything of the PM's conversation, nor the architect's.
    const coderCalls = server.of('coder');
    expect(dialogueOf(coderCalls[0]!)).toEqual([`user: Perform following task: ${SPEC}`]);
    for (const call of [...coderCalls, ...server.of('reviewer')]) {
      const seen = JSON.stringify(messagesOf(call));
      expect(seen).not.toContain('PM-ANALYSIS');
      expect(seen).not.toContain('Analyze these business requirements');
      expect(seen).not.toContain('Create detailed technical specification');
    }
    expect(dialogueOf(coderCalls[1]!).slice(-2)).toEqual(['user: Missing sync.', 'user: FIX: add live sync.']);

    // The architect's own context holds its two turns; its review input carries the sub-workflow's result.
    const [spec, review] = server.of('architect');
    expect(dialogueOf(spec!)).toHaveLength(1);
    expect(dialogueOf(spec!)[0]).toContain(PM_ANALYSIS);
    expect(dialogueOf(review!).slice(0, 2)).toEqual(dialogueOf(spec!).concat(`assistant: ${SPEC}`).slice(0, 2));
    expect(dialogueOf(review!).at(-1)).toBe(
      `user: Review implementation against technical specification. Original spec: ${SPEC}. Implementation: ${SUMMARY}. Evaluate: adherence to architecture, code quality, performance, recommendations.`,
    );

    // The PM's context is its own: its final input gathers the analysis, the result and the review.
    const [, final] = server.of('product_manager');
    expect(dialogueOf(final!)).toHaveLength(3);
    expect(dialogueOf(final!)[1]).toBe(`assistant: ${PM_ANALYSIS}`);
    expect(dialogueOf(final!)[2]).toBe(
      `user: Final review: Requirements: ${REQUIREMENTS}, Business Analysis: ${PM_ANALYSIS}, Implementation: ${SUMMARY}, Architect Review: ${ARCH_REVIEW}. Does this meet business requirements?`,
    );

    expect(ofType(run.events, 'session_ended')).toEqual([expect.objectContaining({ reason: 'workflow hierarchical_development complete', output: PM_FINAL })]);
  });
});
