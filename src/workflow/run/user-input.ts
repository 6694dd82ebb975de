import { emit, note, startCall, type StepContext } from '../../engine/context.js';
import { event } from '../../engine/event-map.js';
import { current, rootPlan, update } from './access.js';
import { keyOf } from './frames.js';
import { advance, redirect } from './flow.js';
import { newRound } from './loop-guard.js';
import { hasResume } from './user-words.js';

// The user's part in a workflow: an answer to request_users_input, input to the resume state, !continue.

/** True while the state's agents work side by side (a fan-out's branches, a debate's rounds): typed text must not cut them off. */
function working(phase: string): boolean {
  return phase === 'fanout' || phase === 'debate';
}

export function onUserText(ctx: StepContext, words: string): void {
  const { run, frame } = current(ctx);
  const s = ctx.s;
  if (run.question && s.status === 'awaiting_user') {
    emit(ctx, event('user_input', { text: words, kind: 'answer' }));
    const q = run.question;
    ctx.s.workflow = { ...run, question: null };
    const asked = { ...(q.said !== undefined ? { said: q.said } : {}), ...(q.arguments !== undefined ? { arguments: q.arguments } : {}), ...(q.input !== undefined ? { input: q.input } : {}) };
    startCall(ctx, q.agent, { kind: 'workflow_answer', text: words, state: frame.state, toolCallId: q.toolCallId, question: q.question, ...asked }, { path: keyOf(frame, frame.state) });
    return;
  }
  if (working(frame.phase)) {
    // Branches and debaters are not interrupted by one line (their work would be thrown away): it waits.
    emit(ctx, event('user_input', { text: words, kind: 'interjection' }));
    const waiting = run.deferredInput === undefined ? words : `${run.deferredInput}\n${words}`;
    ctx.s.workflow = { ...run, deferredInput: waiting };
    const what = frame.phase === 'fanout' ? `the branches of ${frame.state} are running` : `the reviewers of ${frame.state} are debating`;
    const until = frame.phase === 'fanout' ? 'once they join' : 'once the debate is over';
    note(ctx, hasResume(ctx) ? `${what}; your input goes to the workflow's resume state ${until}` : `${what}; your input goes to the next agent's turn${frame.phase === 'fanout' ? ` ${until}` : ''}`);
    return;
  }
  emit(ctx, event('user_input', { text: words, kind: s.status === 'awaiting_user' ? 'reply' : 'interjection' }));
  redirect(ctx, words);
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
