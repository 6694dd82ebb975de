/** The workflow sandbox: workflow code run in QuickJS (on the calling thread when small, else in worker threads), never in the host's JavaScript. */
export { createSandboxEvaluator, type SandboxEvaluator, type SandboxOptions } from './evaluator.js';
export { InlineSandbox, sharedInlineSandbox, type InlineCounts, type InlineSandboxOptions } from './inline-sandbox.js';
export { SandboxPool, sharedSandboxPool, type SandboxPoolOptions } from './pool.js';
export { DEFAULT_LIMITS, SandboxLimitsSchema, type SandboxLimits } from './program.js';
