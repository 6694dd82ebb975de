import { abortInFlight, emit, note, startCall, type StepContext } from '../../engine/context.js';
import { event } from '../../engine/event-map.js';
import { current, rootPlan, runOf, update } from './access.js';
import { keyOf, stateOf } from './frames.js';
import { advance, goTo } from './flow.js';
import { newRound } from './loop-guard.js';
import { dropDebate } from './debate.js';

// The user's part in a workflow: an answer to request_users_input, input to the resume state, !continue.

export function onUserText(ctx: StepContext, words: string): void {
  const { run, frame, plan } = current(ctx);
  const s = ctx.s;
  if (frame.phase === 'fanout') {
    // Branches are not interrupted by one line: it waits for their join, then goes where input goes.
    ctx.s.workflow = { ...run, deferredInput: words };
    note(ctx, `the branches of ${frame.state} are running; your input goes to the workflow once they join`);
    return;
  }
  emit(ctx, event('user_input', { text: words }));
  if (run.question && s.status === 'awaiting_user') {
    const q = run.question;
    ctx.s.workflow = { ...run, question: null };
    const asked = { ...(q.said !== undefined ? { said: q.said } : {}), ...(q.arguments !== undefined ? { arguments: q.arguments } : {}), ...(q.input !== undefined ? { input: q.input } : {}) };
    startCall(ctx, q.agent, { kind: 'workflow_answer', text: words, state: frame.state, toolCallId: q.toolCallId, question: q.question, ...asked }, { path: keyOf(frame, frame.state) });
    return;
  }
  // Seed 003: unsolicited input goes to the `resume` state, else the run starts over (contexts kept).
  abortInFlight(ctx, 'user interjected');
  dropDebate(ctx, 'user interjected');
  ctx.s.workflow = { ...runOf(ctx), evaluating: null, question: null };
  // The user is in the loop now: the loop guard counts afresh.
  newRound(ctx);
  update(ctx, { common_data: { ...frame.common_data, resume_input: words } });
  const target = plan.resume && stateOf(plan, plan.resume) ? plan.resume : plan.start;
  goTo(ctx, target, `user input: ${target === plan.resume ? 'resume' : 'start over'}`);
}

export function onContinue(ctx: StepContext): void {
  const s = ctx.s;
  if (s.status !== 'awaiting_user' || !s.awaiting) {
    note(ctx, s.status === 'running' ? 'the workflow is already running' : 'nothing is waiting');
    return;
  }
  if (s.awaiting.code === 'question') {
    note(ctx, 'the workflow waits for your answer: type it');
    return;
  }
  if (s.awaiting.code === 'limit' && s.turn >= s.turnBudget) s.turnBudget = s.turn + ctx.def.limits.max_turns;
  const { frame } = current(ctx);
  // The loop guard pauses a state on entry, before it runs: it is the new round's first entry.
  newRound(ctx, s.awaiting.code === 'limit' && frame.phase === 'enter');
  s.status = 'running';
  s.awaiting = null;
  update(ctx, { retries: 0, phase: frame.phase === 'call' ? 'act' : frame.phase });
  advance(ctx);
}

/** Team commands that have no meaning in a workflow say so instead of doing something else. */
export function notInWorkflow(ctx: StepContext, what: string): void {
  note(ctx, `${what} is a team command; this session runs the workflow ${rootPlan(ctx).name} (type to send it input, !continue, !quit)`);
}
