import type { StepContext } from '../../engine/context.js';
import type { Evaluation, EvaluationResult } from '../../engine/evaluation.js';
import { current, legacyRun, runOf } from './access.js';
import { scopeOf } from './frames.js';
import { answerInline, takeId } from './inline.js';
import type { Chain } from './chain.js';

// Asking for an evaluation: the sandbox's job as an effect, or the host's answer kept for the policy to settle in this step.

/** An evaluation the host answered in this step, waiting to be settled. */
export type Answered = { id: string; purpose: Evaluation['purpose']; result: EvaluationResult; chain: Chain | null };

const answered = new WeakMap<StepContext, Answered[]>();

/**
 * Asks the runtime to run code in the sandbox; `evaluated` comes back with this id. What needs no code, what the
 * sandbox already ran in the job of the evaluation before, and what the host tier answers are answered in this
 * step, once the move that asked returns (takeAnswered).
 * `chain`: what the engine will ask for next when this succeeds, run in the same job where it needs code.
 */
export function evaluate(ctx: StepContext, purpose: Evaluation['purpose'], what: Pick<Evaluation, 'code' | 'transitions' | 'fields'>, extra: Partial<Evaluation['scope']> = {}, chain?: Chain): void {
  let built: Evaluation | undefined;
  const evaluation = (): Evaluation => {
    if (built) return built;
    const { frame, plan } = current(ctx);
    // The scope as scopeOf made it when nothing is added (most evaluations): not copied again, key by key.
    const scope = scopeOf(frame, plan, legacyRun(ctx));
    // One shape for every evaluation (what it does not ask for is undefined, which the wire leaves out), not spreads of
    // the request and chain, whose shapes differ by purpose.
    built = {
      workflow: plan.name,
      state: frame.state,
      purpose,
      code: what.code,
      transitions: what.transitions,
      fields: what.fields,
      next: chain?.next,
      targets: chain?.targets,
      scope: Object.keys(extra).length === 0 ? scope : { ...scope, ...extra },
    };
    return built;
  };
  const inline = answerInline(ctx, purpose, what, extra, evaluation);
  if (inline) {
    // Answered by the host: settled by the policy once this move returns (settleAnswered), not from inside it,
    // so a run of host decisions is a loop rather than a recursion through the modules that move the run.
    const queue = answered.get(ctx) ?? [];
    queue.push({ id: takeId(ctx), purpose, result: inline.result, chain: inline.chain });
    answered.set(ctx, queue);
    return;
  }
  const run = runOf(ctx);
  const id = `e${run.evalSeq + 1}`;
  const asked = evaluation();
  ctx.s.workflow = { ...run, evalSeq: run.evalSeq + 1, evaluating: { id, purpose, evaluation: asked } };
  ctx.s.status = 'running';
  ctx.fx.push({ type: 'evaluate', id, evaluation: asked });
}

/** The next evaluation the host answered in this step (first asked, first settled), or null. */
export function takeAnswered(ctx: StepContext): Answered | null {
  return answered.get(ctx)?.shift() ?? null;
}
