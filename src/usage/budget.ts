import type { UsageMeter } from './usage-meter.js';

/** The session budgets from team.json `limits` (null: no budget). */
export interface BudgetLimits {
  max_tokens: number | null;
  max_cost: number | null;
}

/**
 * Watches a meter against the session budgets. It reports a budget once; after that the
 * user has chosen to go on (`!continue`), so the next report comes one more budget later.
 */
export class BudgetGuard {
  private tokenLimit: number | null;
  private costLimit: number | null;

  constructor(
    private readonly meter: UsageMeter,
    private readonly limits: BudgetLimits,
  ) {
    // A meter restored on resume may already be past budgets the user let the session go beyond
    // (each pause was answered with !continue); the next pause comes one budget past today's total.
    this.tokenLimit = limits.max_tokens === null ? null : nextStep(meter.totalTokens, limits.max_tokens);
    this.costLimit = limits.max_cost === null ? null : nextStep(meter.session.cost, limits.max_cost);
  }

  /** The reason the session should pause now, or null. */
  check(): string | null {
    const tokens = this.meter.totalTokens;
    if (this.tokenLimit !== null && this.limits.max_tokens !== null && tokens >= this.tokenLimit) {
      const reason = `token budget reached: ${tokens} of max_tokens ${this.limits.max_tokens} used; !continue allows another ${this.limits.max_tokens}`;
      this.tokenLimit = tokens + this.limits.max_tokens;
      return reason;
    }
    const cost = this.meter.session.cost;
    if (this.costLimit !== null && this.limits.max_cost !== null && cost >= this.costLimit) {
      const reason = `cost budget reached: $${cost.toFixed(4)} of max_cost $${this.limits.max_cost} spent; !continue allows another $${this.limits.max_cost}`;
      this.costLimit = cost + this.limits.max_cost;
      return reason;
    }
    return null;
  }
}

/** The first multiple of `step` above `used` (exactly `step` when nothing is used yet). */
function nextStep(used: number, step: number): number {
  if (step <= 0 || used < step) return step;
  return (Math.floor(used / step) + 1) * step;
}
