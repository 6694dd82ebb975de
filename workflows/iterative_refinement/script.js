/**
 * Handlers of the iterative_refinement workflow (seed 001's iterative pattern). They run in troupe's
 * sandbox with `this` bound to the workflow.
 */

/** Pre-handler of the first state: the counters. */
export function initializeWorkflow() {
    this.common_data.iteration_count = 0;
    this.common_data.scores = [];
}

/** Post-handler of the writer: keep the newest draft. */
export function keepDraft() {
    this.common_data.draft = this.last_agent_response;
}

/** Post-handler of the critic: read the score and the improvement it asks for. */
export function evaluateProgress() {
    const calls = this.getToolCalls('critic');
    const assessment = calls.length > 0 ? calls[calls.length - 1].arguments : {};
    const score = typeof assessment.score === 'number' ? assessment.score : 0;
    this.common_data.score = score;
    this.common_data.scores.push(score);
    this.common_data.improvement = assessment.improvement || 'make it clearer and more complete';
}

/** Transition handler: finish when the score passes or the iterations are spent, else iterate. */
export function decideIteration() {
    if (this.common_data.score >= this.common_data.confidence_threshold) return 'finalize';
    if (this.common_data.iteration_count >= this.common_data.max_iterations) return 'finalize';
    return 'iterate';
}

/** Pre-handler of iterate: count the iteration. */
export function checkIterationLimit() {
    this.common_data.iteration_count = this.common_data.iteration_count + 1;
}

/** Pre-handler of finalize: the workflow's output. */
export function generateFinalOutput() {
    this.common_data.final_result = {
        draft: this.common_data.draft,
        score: this.common_data.score,
        iterations: this.common_data.iteration_count,
        scores: this.common_data.scores,
    };
}
