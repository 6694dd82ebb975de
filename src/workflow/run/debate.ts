import { z } from 'zod';
import { emit, note, startCall, type StepContext } from '../../engine/context.js';
import { event } from '../../engine/event-map.js';
import type { ToolSpec } from '../../directive/tool.js';
import { current, setFrame, update } from './access.js';
import { keyOf } from './frames.js';
import type { DebatePlan } from './plan.js';
import { ChangesSchema, type ToolCallRecord } from '../../engine/agent-reply.js';
import type { Debate, Verdict } from './state.js';
import { formatImplementationsForReview } from './review-format.js';
import { takeUserWords } from './user-input.js';

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
  description: 'End your debate turn with your verdict: whether you agree with the other reviewers as the debate stands, whether the work is approved, your feedback for the implementers, and the implementations ranked best first (by their ids).',
  parameters: verdictParameters,
};

/** What a debate step leads to: another turn runs, or the debate is over (its outcome in common_data). */
export type DebateOutcome = { kind: 'wait' } | { kind: 'over' };

function reviewerTurn(ctx: StepContext, plan: DebatePlan, debate: Debate): void {
  const { frame } = current(ctx);
  const reviewer = debate.synthesising ? plan.synthesiser : plan.reviewers[debate.turn]!;
  const said = debate.transcript.map((t) => `[round ${t.round + 1}] ${t.reviewer}: ${t.text}`).join('\n\n');
  const ask = debate.synthesising
    ? `The reviewers did not agree within ${plan.maxRounds} rounds. Write the consensus they would reach from the debate above: one feedback for the implementers, whether the work is approved, and a ranking. Call ${VERDICT_TOOL} with agree: true.`
    : `Round ${debate.round + 1} of at most ${plan.maxRounds}. Give your review${debate.transcript.length ? ', answering the other reviewers where you differ' : ''}, then call ${VERDICT_TOOL}: agree is true only if you can sign the debate's current position as it stands.`;
  const text = `${debate.subject}${said ? `\n\n## The debate so far\n${said}` : ''}\n\n${ask}`;
  startCall(ctx, reviewer, { kind: 'workflow', text, state: frame.state, ...takeUserWords(ctx) }, { path: keyOf(frame, frame.state) });
  update(ctx, { debate: { ...debate, call: ctx.s.inFlight } });
}

/** The implementations a debate is about, rendered for reviewers from a parallel state's results in common_data. */
function implementationsOf(ctx: StepContext, plan: DebatePlan): string {
  if (!plan.implementations) return '';
  const results = current(ctx).frame.common_data[plan.implementations];
  if (!results || typeof results !== 'object') return `(no implementations under common_data.${plan.implementations})`;
  const parsed = Object.entries(results as Record<string, unknown>).map(([id, r]) => ({ id, ...BranchResult.parse(r) }));
  return formatImplementationsForReview(parsed.map((r) => ({ id: r.id, ...(r.agent ? { agent: r.agent } : {}), ...(r.text ? { text: r.text } : {}), ...(r.changes ? { changes: r.changes } : {}), ...(r.error ? { error: r.error } : {}) })));
}

// A join's result per branch, as far as reviewers need it (code may have changed common_data: parse loosely).
const BranchResult = z.object({ agent: z.string().optional(), text: z.string().optional(), changes: ChangesSchema.optional(), error: z.string().optional() }).catch({});

/** Starts a debate on its subject (and the implementations it is about): the first reviewer's turn of round one. */
export function startDebate(ctx: StepContext, plan: DebatePlan, input: string): void {
  const subject = [input, implementationsOf(ctx, plan)].filter((part) => part.trim() !== '').join('\n\n');
  const debate: Debate = { subject, round: 0, turn: 0, rounds: [[]], transcript: [], call: null, synthesising: false };
  update(ctx, { phase: 'debate' });
  reviewerTurn(ctx, plan, debate);
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
  for (const v of verdicts) v.ranking.forEach((id, i) => points.set(id, (points.get(id) ?? 0) + (v.ranking.length - i)));
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

/** A reviewer's turn came back: record the verdict, then the next turn, the next round, the synthesiser, or the end. */
export function debateTurnDone(ctx: StepContext, plan: DebatePlan, text: string, toolCalls: ToolCallRecord[]): DebateOutcome {
  const { frame } = current(ctx);
  const debate = frame.debate!;
  const reviewer = debate.synthesising ? plan.synthesiser : plan.reviewers[debate.turn]!;
  const verdict = verdictOf(ctx, reviewer, text, toolCalls);
  emit(ctx, event('verdict', { state: frame.state, round: debate.round + 1, reviewer, agree: verdict.agree, approve: verdict.approve, feedback: verdict.feedback }));
  if (debate.synthesising) return finish(ctx, plan, { ...debate, call: null }, [verdict], false);
  const rounds = [...debate.rounds.slice(0, -1), [...debate.rounds.at(-1)!, verdict]];
  let next: Debate = { ...debate, call: null, rounds, transcript: [...debate.transcript, { reviewer, round: debate.round, text: verdict.feedback || text }], turn: debate.turn + 1 };
  if (next.turn < plan.reviewers.length) {
    reviewerTurn(ctx, plan, next);
    return { kind: 'wait' };
  }
  const round = rounds.at(-1)!;
  // Consensus: every reviewer agreeing in the same round.
  if (round.every((v) => v.agree)) return finish(ctx, plan, next, round, true);
  if (next.round + 1 >= plan.maxRounds) next = { ...next, synthesising: true };
  else next = { ...next, round: next.round + 1, turn: 0, rounds: [...rounds, []] };
  reviewerTurn(ctx, plan, next);
  return { kind: 'wait' };
}
