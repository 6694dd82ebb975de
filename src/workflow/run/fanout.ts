import { changeState, emit, type StepContext } from '../../engine/context.js';
import { event } from '../../engine/event-map.js';
import type { AgentCall } from '../../engine/moves.js';
import { current, nextTurnId, setFrame, update } from './access.js';
import { keyOf } from './frames.js';
import type { ParallelPlan } from './plan.js';
import type { Changes, ToolCallRecord } from '../../engine/agent-reply.js';
import type { Branch } from './state.js';
import { takeUserWords } from './user-words.js';

/** The id of each branch's working state and of the final state it ends in, inside its region. */
export const BRANCH_WORK = 'work';
export const BRANCH_DONE = 'done';

/** The prefix of a branch's `when` field among the evaluated branch inputs. */
export const WHEN = 'when:';

/** What a fan-out step leads to: wait for more, go on (the branches joined), or fail the state. */
export type FanoutOutcome = { kind: 'wait' } | { kind: 'joined' } | { kind: 'fail'; reason: string };

function branchKey(ctx: StepContext, branch: string, leaf: string): string {
  const { frame } = current(ctx);
  return keyOf({ prefix: [...frame.prefix, frame.state, branch] }, leaf);
}

/**
 * Starts every branch at once, each with its evaluated input: one call per branch, all in flight together.
 * A branch whose `when` is false is skipped (its region goes straight to its end).
 */
export function fanOut(ctx: StepContext, plan: ParallelPlan, inputs: Record<string, unknown>): FanoutOutcome {
  const { frame } = current(ctx);
  const branches: Record<string, Branch> = {};
  const skipped: string[] = [];
  const user = takeUserWords(ctx);
  for (const b of plan.branches) {
    const text = typeof inputs[b.id] === 'string' ? (inputs[b.id] as string) : JSON.stringify(inputs[b.id] ?? '');
    if (b.when && inputs[`${WHEN}${b.id}`] !== true) {
      branches[b.id] = { agent: b.agent, status: 'skipped', call: null, input: text };
      skipped.push(b.id);
      continue;
    }
    const call: AgentCall = {
      turnId: nextTurnId(ctx),
      persona: b.agent,
      path: branchKey(ctx, b.id, BRANCH_WORK),
      attempt: 1,
      inbox: { kind: 'workflow', text, state: frame.state, ...user },
      branch: b.id,
      ...(plan.timeoutMs !== null ? { timeoutMs: plan.timeoutMs } : {}),
    };
    branches[b.id] = { agent: b.agent, status: 'running', call, input: text };
    ctx.fx.push({ type: 'call_agent', call });
  }
  ctx.s.status = 'running';
  update(ctx, { phase: 'fanout', branches });
  const policy = typeof plan.join === 'string' ? plan.join : `quorum ${plan.join.quorum}`;
  emit(ctx, event('fanout', { state: frame.state, branches: plan.branches.map((b) => b.id).filter((id) => !skipped.includes(id)), join: policy }));
  for (const id of skipped) changeState(ctx, branchKey(ctx, id, BRANCH_DONE), 'workflow', `branch ${id} skipped (its "when" is not true)`, undefined, branchKey(ctx, id, BRANCH_WORK));
  return skipped.length === plan.branches.length ? join(ctx, plan, 0) : { kind: 'wait' };
}

/** The branch a call belongs to, if it is one of the running fan-out's. */
export function branchOf(ctx: StepContext, turnId: string): string | null {
  const branches = current(ctx).frame.branches ?? {};
  return Object.entries(branches).find(([, b]) => b.call?.turnId === turnId && b.status === 'running')?.[0] ?? null;
}

/** The calls of branches still running (re-run after a crash: the finished ones are not). */
export function runningBranchCalls(branches: Record<string, Branch> | undefined): AgentCall[] {
  return Object.values(branches ?? {}).flatMap((b) => (b.status === 'running' && b.call ? [b.call] : []));
}

/** Records a branch's result (or failure), moves its region to its end, then checks the join. */
export function branchFinished(
  ctx: StepContext,
  plan: ParallelPlan,
  id: string,
  result: { ok: true; text: string; toolCalls: ToolCallRecord[]; changes?: Changes } | { ok: false; error: string },
): FanoutOutcome {
  const { frame } = current(ctx);
  const branch = frame.branches![id]!;
  const done: Branch = result.ok
    ? { ...branch, status: 'done', call: null, text: result.text, toolCalls: result.toolCalls, ...(result.changes ? { changes: result.changes } : {}) }
    : { ...branch, status: 'failed', call: null, error: result.error };
  update(ctx, { branches: { ...frame.branches, [id]: done } });
  changeState(ctx, branchKey(ctx, id, BRANCH_DONE), 'workflow', result.ok ? `branch ${id} done` : `branch ${id} failed: ${result.error}`, undefined, branchKey(ctx, id, BRANCH_WORK));
  return checkJoin(ctx, plan);
}

/** Whether the join is decided: all finished; any one done; a quorum done (or out of reach). */
function checkJoin(ctx: StepContext, plan: ParallelPlan): FanoutOutcome {
  const { frame } = current(ctx);
  const all = Object.entries(frame.branches ?? {}).filter(([, b]) => b.status !== 'skipped');
  const done = all.filter(([, b]) => b.status === 'done').map(([id]) => id);
  const running = all.filter(([, b]) => b.status === 'running').map(([id]) => id);
  // `all` waits for every branch (and goes on with those done); `any` and a quorum stop once they have enough.
  const need = plan.join === 'all' || plan.join === 'any' ? 1 : Math.min(plan.join.quorum, all.length);
  const enough = plan.join !== 'all' && done.length >= need;
  const decided = running.length === 0 || enough || done.length + running.length < need;
  if (!decided) return { kind: 'wait' };
  for (const id of running) cancel(ctx, id, done.length >= need ? 'the join had what it needed' : 'the join can no longer be met');
  return join(ctx, plan, need);
}

function cancel(ctx: StepContext, id: string, reason: string): void {
  const { frame } = current(ctx);
  const branch = frame.branches![id]!;
  if (branch.call) {
    ctx.fx.push({ type: 'abort_call', turnId: branch.call.turnId, reason });
    emit(ctx, event('agent_aborted', { turn_id: branch.call.turnId, persona: branch.agent, reason, branch: id }));
  }
  update(ctx, { branches: { ...frame.branches, [id]: { ...branch, status: 'cancelled', call: null, error: reason } } });
}

/** The join: the results go into common_data; failures are kept; the state goes on or fails as configured. */
function join(ctx: StepContext, plan: ParallelPlan, need: number): FanoutOutcome {
  const { frame } = current(ctx);
  const entries = Object.entries(frame.branches ?? {}).filter(([, b]) => b.status !== 'skipped');
  const done = entries.filter(([, b]) => b.status === 'done');
  const failed = entries.filter(([, b]) => b.status === 'failed').map(([branch, b]) => ({ branch, error: b.error ?? 'failed' }));
  const results = Object.fromEntries(
    entries.map(([id, b]) => [
      id,
      {
        agent: b.agent,
        ok: b.status === 'done',
        status: b.status,
        text: b.text ?? '',
        ...(b.changes ? { changes: b.changes } : {}),
        ...(b.error ? { error: b.error } : {}),
        toolCalls: b.toolCalls ?? [],
      },
    ]),
  );
  const fails = done.length < need || (failed.length > 0 && plan.onFailure === 'fail');
  emit(ctx, event('joined', { state: frame.state, done: done.map(([id]) => id), failed, outcome: fails ? 'fail' : 'continue' }));
  // The branches leave the frame (setFrame, since update merges and would keep them).
  const { branches: _gone, ...rest } = current(ctx).frame;
  setFrame(ctx, { ...rest, common_data: { ...frame.common_data, [plan.into]: results } });
  if (fails) {
    const why = failed.map((f) => `${f.branch}: ${f.error}`).join('; ') || `only ${done.length} of ${need} branches finished`;
    return { kind: 'fail', reason: `the branches did not join (${why})` };
  }
  return { kind: 'joined' };
}
