/**
 * Handlers of the conditional_review workflow. They run in troupe's sandbox with `this` bound to the
 * workflow: this.common_data, this.getToolCalls(role), this.last_agent_response, ...
 */

/** The reviewer's last review_work call, or null. */
function lastReview(ctx) {
    const calls = ctx.getToolCalls('reviewer');
    for (let i = calls.length - 1; i >= 0; i--) if (calls[i].name === 'review_work') return calls[i].arguments;
    return null;
}

/** Transition handler: approve when the review needs nothing more (or the rounds are spent), else fix. */
export function decideAction() {
    const review = lastReview(this);
    this.common_data.rounds = (this.common_data.rounds || 0) + 1;
    if (review && review.improvement_needed === false) {
        this.common_data.summary = review.work_summary || this.last_agent_response;
        return 'approve';
    }
    if (this.common_data.rounds >= this.common_data.max_rounds) {
        this.common_data.summary = 'Not approved after ' + this.common_data.rounds + ' rounds. Last review: ' + this.last_agent_response;
        return 'approve';
    }
    this.common_data.feedback = (review && review.continue_message) || this.last_agent_response;
    console.log('round ' + this.common_data.rounds + ': fixes needed');
    return 'fix_issues';
}

/** Pre-handler of approve: the result. */
export function recordApproval() {
    this.common_data.result = this.common_data.summary;
}
