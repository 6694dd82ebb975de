import { z } from 'zod';
import { emit, note, startCall, type StepContext } from '../../engine/context.js';
import { event } from '../../engine/event-map.js';
import type { ToolSpec } from '../../directive/tool.js';
import { current, nextTurnId, setFrame, update } from './access.js';
import type { AgentCall } from '../../engine/moves.js';
import { keyOf } from './frames.js';
import type { DebatePlan } from './plan.js';
import { ChangesSchema, type ToolCallRecord } from '../../engine/agent-reply.js';
import type { Debate, Verdict } from './state.js';
import { formatImplementationsForReview } from './review-format.js';
import { takeUserWords } from './user-words.js';

/** The tool each debate turn ends with: a structured verdict, never keywords in the text. */
export const VERDICT_TOOL = 'review_verdict';

const VerdictArgs = z.object({
  agree: z.boolean(),
  approve: z.boolean(),
  feedback: z.string(),
  ranking: z.array(z.string()).default([]),
});

const { $schema: _draft, ...verdictParameters } = z.toJSONSchema(VerdictArgs, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;

/** The review_verdict tool offered to reviewers and the synthesiser. */
export const verdictTool: ToolSpec = {
  name: VERDICT_TOOL,
  description:
    'End your debate turn with your verdict: whether you agree with the other reviewers as the debate stands, whether the work is approved, your feedback for the implementers, and the implementations ranked best first (by their ids).',
  parameters: verdictParameters,
};

/** What a debate step leads to: another turn runs, or the debate is over (its outcome in common_data). */
export type DebateOutcome = { kind: 'wait' } | { kind: 'over' };

/** The debate so far as a reviewer reads it: every earlier message, whole, with the verdict it ended with. */
function debateSoFar(debate: Debate): string {
  return debate.transcript
    .map((t) => {
      const v = t.verdict;
      const verdict = v ? `\n(verdict: agree ${v.agree}, approve ${v.approve}${v.ranking.length ? `, ranking ${v.ranking.join(' > ')}` : ''}; feedback: ${v.feedback})` : '';
      return `### Round ${t.round + 1}, ${t.reviewer}\n${t.text.trim() || '(no words)'}${verdict}`;
    })
    .join('\n\n');
}

/** What a reviewer is asked: the subject, the debate so far (from round 2 on), and what this turn is for. */
function turnText(plan: DebatePlan, debate: Debate): string {
  const said = debateSoFar(debate);
  const ask = debate.synthesising
    ? `The reviewers did not agree within ${plan.maxRounds} rounds. Write the consensus they would reach from the debate above: one feedback for the implementers, whether the work is approved, and a ranking. Call ${VERDICT_TOOL} with agree: true.`
    : debate.round === 0
      ? `Round 1 of at most ${plan.maxRounds}: your independent review. The other reviewers review at the same time; you will read their reviews in the next round. Give your review, then call ${VERDICT_TOOL}: agree is true only if you would sign your review as the consensus, whatever the others find.`
      : `Round ${debate.round + 1} of at most ${plan.maxRounds}. Read the other reviewers' messages and verdicts above and answer their arguments where you differ, then call ${VERDICT_TOOL}: agree is true only if you can sign the debate's current position as it stands.`;
  return `${debate.subject}${said ? `\n\n## The debate so far\n${said}` : ''}\n\n${ask}`;
}

/** The next sequential turn (from round 2 on, and the synthesiser): one reviewer, who reads everything said before. */
function reviewerTurn(ctx: StepContext, plan: DebatePlan, debate: Debate): void {
  const { frame } = current(ctx);
  const reviewer = debate.synthesising ? plan.synthesiser : plan.reviewers[debate.turn]!;
  startCall(ctx, reviewer, { kind: 'workflow', text: turnText(plan, debate), state: frame.state, ...takeUserWords(ctx) }, { path: keyOf(frame, frame.state) });
  update(ctx, { debate: { ...debate, call: ctx.s.inFlight } });
}

/** Round 1: every reviewer reviews the subject alone, all at once (seed 002's independent initial reviews). */
function independentReviews(ctx: StepContext, plan: DebatePlan, debate: Debate): void {
  const { frame } = current(ctx);
  const text = turnText(plan, debate);
  // Words the user typed before the debate began reach every reviewer's independent review.
  const user = takeUserWords(ctx);
  const pending: Record<string, AgentCall> = {};
  for (const reviewer of plan.reviewers) {
    const call: AgentCall = {
      turnId: nextTurnId(ctx),
      persona: reviewer,
      path: keyOf(frame, frame.state),
      attempt: 1,
      inbox: { kind: 'workflow', text, state: frame.state, ...user },
      branch: reviewer,
    };
    pending[reviewer] = call;
    ctx.fx.push({ type: 'call_agent', call });
  }
  ctx.s.status = 'running';
  update(ctx, { debate: { ...debate, pending } });
}

/** The reviewer whose independent review (round 1, in flight at once) a call is, if it is one. */
export function debateCallOf(ctx: StepContext, turnId: string): string | null {
  const pending = current(ctx).frame.debate?.pending ?? {};
  return Object.entries(pending).find(([, call]) => call.turnId === turnId)?.[0] ?? null;
}

/** The independent reviews still running (re-run after a crash). */
export function pendingDebateCalls(debate: Debate | undefined): AgentCall[] {
  return Object.values(debate?.pending ?? {});
}

/** The user interjected: independent reviews still running are aborted and the debate is dropped (the run goes where input goes). */
export function dropDebate(ctx: StepContext, reason: string): void {
  const { frame } = current(ctx);
  if (!frame.debate) return;
  for (const call of pendingDebateCalls(frame.debate)) ctx.fx.push({ type: 'abort_call', turnId: call.turnId, reason });
  const { debate: _gone, ...rest } = frame;
  setFrame(ctx, rest);
}

/** An independent review failed for good: the others are cancelled and the state fails (as a sequential turn's failure does). */
export function debateCallFailed(ctx: StepContext, reviewer: string, reason: string): string {
  const { frame } = current(ctx);
  const debate = frame.debate!;
  for (const [other, call] of Object.entries(debate.pending ?? {})) {
    if (other === reviewer) continue;
    ctx.fx.push({ type: 'abort_call', turnId: call.turnId, reason: `${reviewer}'s review failed` });
  }
  const { debate: _gone, ...rest } = frame;
  setFrame(ctx, rest);
  return `${reviewer}'s independent review failed: ${reason}`;
}

/** The implementations a debate is about, rendered for reviewers from a parallel state's results in common_data. */
function implementationsOf(ctx: StepContext, plan: DebatePlan): string {
  if (!plan.implementations) return '';
  const results = current(ctx).frame.common_data[plan.implementations];
  if (!results || typeof results !== 'object') return `(no implementations under common_data.${plan.implementations})`;
  const parsed = Object.entries(results as Record<string, unknown>).map(([id, r]) => ({ id, ...BranchResult.parse(r) }));
  return formatImplementationsForReview(
    parsed.map((r) => ({
      id: r.id,
      ...(r.agent ? { agent: r.agent } : {}),
      ...(r.text ? { text: r.text } : {}),
      ...(r.changes ? { changes: r.changes } : {}),
      ...(r.error ? { error: r.error } : {}),
    })),
  );
}

// A join's result per branch, as far as reviewers need it (code may have changed common_data: parse loosely).
const BranchResult = z.object({ agent: z.string().optional(), text: z.string().optional(), changes: ChangesSchema.optional(), error: z.string().optional() }).catch({});

/** Starts a debate on its subject (and the implementations it is about): round one, every reviewer's independent review at once. */
export function startDebate(ctx: StepContext, plan: DebatePlan, input: string): void {
  const subject = [input, implementationsOf(ctx, plan)].filter((part) => part.trim() !== '').join('\n\n');
  const debate: Debate = { subject, round: 0, turn: 0, rounds: [[]], transcript: [], call: null, synthesising: false };
  update(ctx, { phase: 'debate' });
  independentReviews(ctx, plan, debate);
}

/** The verdict a reviewer's turn ended with; a turn without one (or with bad arguments) counts as not agreeing, and says so. */
function verdictOf(ctx: StepContext, reviewer: string, text: string, toolCalls: ToolCallRecord[]): Verdict {
  const call = [...toolCalls].reverse().find((c) => c.name === VERDICT_TOOL);
  const parsed = call ? VerdictArgs.safeParse(call.arguments) : null;
  if (parsed?.success) return { reviewer, ...parsed.data };
  note(ctx, `${reviewer} gave no valid ${VERDICT_TOOL}${parsed ? ` (${parsed.error.issues[0]?.message ?? 'bad arguments'})` : ''}: counted as not agreeing`);
  return { reviewer, agree: false, approve: false, feedback: text, ranking: [] };
}

/** Borda count over the reviewers' rankings: the implementations best first. */
function combinedRanking(verdicts: Verdict[]): string[] {
  const points = new Map<string, number>();
  for (const v of verdicts) for (const [i, id] of v.ranking.entries()) points.set(id, (points.get(id) ?? 0) + (v.ranking.length - i));
  return [...points.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([id]) => id);
}

function finish(ctx: StepContext, plan: DebatePlan, debate: Debate, verdicts: Verdict[], consensus: boolean): DebateOutcome {
  const { frame } = current(ctx);
  const approve = verdicts.length > 0 && verdicts.every((v) => v.approve);
  const outcome = {
    consensus,
    approve,
    synthesised: debate.synthesising,
    rounds: debate.round + 1,
    feedback: verdicts.map((v) => `${v.reviewer}: ${v.feedback}`).join('\n'),
    ranking: combinedRanking(verdicts),
    transcript: debate.transcript,
  };
  emit(ctx, event('debate_ended', { state: frame.state, rounds: outcome.rounds, consensus, approve, synthesised: debate.synthesising }));
  // The debate is over: it leaves the frame (setFrame, since update merges and would keep it).
  const { debate: _gone, ...rest } = current(ctx).frame;
  setFrame(ctx, { ...rest, common_data: { ...frame.common_data, [plan.into]: outcome } });
  return { kind: 'over' };
}

/** A reviewer's turn came back (`reviewer`: an independent review of round one, else the sequential turn): record the verdict, then the next turn, the next round, the synthesiser, or the end. */
export function debateTurnDone(ctx: StepContext, plan: DebatePlan, text: string, toolCalls: ToolCallRecord[], independent?: string): DebateOutcome {
  const { frame } = current(ctx);
  const debate = frame.debate!;
  const reviewer = independent ?? (debate.synthesising ? plan.synthesiser : plan.reviewers[debate.turn]!);
  const verdict = verdictOf(ctx, reviewer, text, toolCalls);
  emit(ctx, event('verdict', { state: frame.state, round: debate.round + 1, reviewer, agree: verdict.agree, approve: verdict.approve, feedback: verdict.feedback }));
  if (debate.synthesising) return finish(ctx, plan, { ...debate, call: null }, [verdict], false);
  const said = { reviewer, round: debate.round, text, verdict };
  let next: Debate;
  if (independent !== undefined) {
    const { [reviewer]: _done, ...pending } = debate.pending ?? {};
    const reviews = [...debate.rounds[0]!, verdict];
    const transcript = [...debate.transcript, said];
    if (Object.keys(pending).length > 0) {
      update(ctx, { debate: { ...debate, pending, rounds: [reviews], transcript } });
      return { kind: 'wait' };
    }
    // All in: the reviews in the reviewers' order, as the later rounds read them.
    const order = (r: string) => plan.reviewers.indexOf(r);
    const { pending: _none, ...rest } = debate;
    next = {
      ...rest,
      call: null,
      rounds: [reviews.sort((a, b) => order(a.reviewer) - order(b.reviewer))],
      transcript: transcript.sort((a, b) => order(a.reviewer) - order(b.reviewer)),
      turn: plan.reviewers.length,
    };
  } else {
    const rounds = [...debate.rounds.slice(0, -1), [...debate.rounds.at(-1)!, verdict]];
    next = { ...debate, call: null, rounds, transcript: [...debate.transcript, said], turn: debate.turn + 1 };
  }
  if (next.turn < plan.reviewers.length) {
    reviewerTurn(ctx, plan, next);
    return { kind: 'wait' };
  }
  const rounds = next.rounds;
  const round = rounds.at(-1)!;
  // Consensus: every reviewer agreeing in the same round.
  if (round.every((v) => v.agree)) return finish(ctx, plan, next, round, true);
  if (next.round + 1 >= plan.maxRounds) next = { ...next, synthesising: true };
  else next = { ...next, round: next.round + 1, turn: 0, rounds: [...rounds, []] };
  reviewerTurn(ctx, plan, next);
  return { kind: 'wait' };
}
