import { describe, expect, it } from 'vitest';
import { cleanEnv } from '../../helpers/cli.js';
import { dialogueOf, ofType, reply, roleServerPerTest, runJson, statesEntered, toolsOf, transitionsOf } from '../../helpers/workflow-run.js';

const TASK = 'a bech32 encoder in TypeScript';
const INSTRUCTION = "review coder's work, provide continue_message or work_summary";

const serveRoles = roleServerPerTest();

describe('coder_reviewer (the shipped seed 000 workflow) through `troupe run --workflow` against a local server', () => {
  it('a rejection then an approval, routed by review_work.improvement_needed: states, contexts and the output', async () => {
    const server = await serveRoles({
      coder: [reply('v1: encode() maps 5-bit groups to the charset.'), reply('v2: encode() now appends the 6-character checksum.')],
      reviewer: [
        // The words say "looks good" while the tool says improvement_needed: the tool decides, not the text.
        reply('Looks good overall, but see my note.', { name: 'review_work', arguments: { improvement_needed: true, continue_message: 'Add the bech32 checksum (polymod).' } }),
        reply('Complete now.', { name: 'review_work', arguments: { improvement_needed: false, work_summary: 'bech32 encoder with checksum, reviewed' } }),
      ],
    });

    const run = await runJson(['run', '--workflow', 'coder_reviewer', '--input', TASK], cleanEnv({ OPENAI_BASE_URL: server.baseURL }));
    expect(run.stderr).toContain(`session ${run.id} saved`);
    expect(run.code).toBe(0);
    expect(server.unexpected).toEqual([]);

    expect(statesEntered(run.events)).toEqual(['start', 'code', 'review', 'code', 'review', 'stop']);
    expect(transitionsOf(run.events)).toEqual([' -> start', 'start -> code', 'code -> review', 'review -> code', 'code -> review', 'review -> stop']);
    expect(ofType(run.events, 'agent_message').map((e) => e.persona)).toEqual(['coder', 'reviewer', 'coder', 'reviewer']);

    // The coder is the context's assistant: its own words are assistant turns; the reviewer's words and
    // its continue_message come to it as the user's.
    const [coder1, coder2] = server.of('coder');
    expect(toolsOf(coder1!)).toEqual([]);
    expect(dialogueOf(coder1!)).toEqual([`user: Perform following task: ${TASK}`]);
    expect(dialogueOf(coder2!)).toEqual([
      `user: Perform following task: ${TASK}`,
      'assistant: v1: encode() maps 5-bit groups to the charset.',
      'user: Looks good overall, but see my note.',
      'user: Add the bech32 checksum (polymod).',
    ]);

    // The reviewer plays the user of the same context: it sees it mirrored (the coder's words as user
    // messages), and is offered the review_work parsing tool.
    const [review1, review2] = server.of('reviewer');
    expect(toolsOf(review1!)).toEqual(['review_work']);
    expect(dialogueOf(review1!)).toEqual([`assistant: Perform following task: ${TASK}`, 'user: v1: encode() maps 5-bit groups to the charset.', `user: ${INSTRUCTION}`]);
    expect(dialogueOf(review2!)).toEqual([
      `assistant: Perform following task: ${TASK}`,
      'user: v1: encode() maps 5-bit groups to the charset.',
      'assistant: Looks good overall, but see my note.',
      'assistant: Add the bech32 checksum (polymod).',
      'user: v2: encode() now appends the 6-character checksum.',
      `user: ${INSTRUCTION}`,
    ]);
    expect(server.requests).toHaveLength(4);

    const ended = ofType(run.events, 'session_ended');
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({ reason: 'workflow coder_reviewer complete', output: 'bech32 encoder with checksum, reviewed' });
    expect(run.events.at(-1)?.type).toBe('session_ended');
  });

  it('a reviewer that never calls review_work: one repair round forcing the tool, then a pause (exit 1); resume with !continue finishes', async () => {
    const approve = reply('Fine.', { name: 'review_work', arguments: { improvement_needed: false, work_summary: 'done after a pause' } });
    const server = await serveRoles({ coder: [reply('v1')], reviewer: [reply('I forgot the tool.'), reply('Still no tool.'), approve] });
    const env = cleanEnv({ OPENAI_BASE_URL: server.baseURL });
    const run = await runJson(['run', '--workflow', 'coder_reviewer', '--input', TASK], env);
    const [, repair] = server.of('reviewer');
    expect((repair!.body as { tool_choice: unknown }).tool_choice).toEqual({ type: 'function', function: { name: 'review_work' } });
    const errors = ofType(run.events, 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ where: 'coder_reviewer.review', message: expect.stringContaining('did not call review_work') });
    expect(ofType(run.events, 'awaiting_user')[0]?.reason).toMatch(/^coder_reviewer: state review failed: [^\n]*; !continue tries it again$/);
    expect(ofType(run.events, 'session_detached')).toHaveLength(1);
    expect(ofType(run.events, 'session_ended')).toHaveLength(0);
    expect(run.code).toBe(1);

    const resumed = await runJson(['resume', run.id], env, '!continue\n');
    expect(resumed.code).toBe(0);
    expect(server.of('coder')).toHaveLength(1);
    expect(server.of('reviewer')).toHaveLength(3);
    expect(ofType(resumed.events, 'session_ended')[0]).toMatchObject({ reason: 'workflow coder_reviewer complete', output: 'done after a pause' });
  });
});
