/** The workflow sandbox: workflow code run in QuickJS in worker threads, never in the host. */
export { createSandboxEvaluator, type SandboxEvaluator, type SandboxOptions } from './evaluator.js';
export { SandboxPool, sharedSandboxPool, type SandboxPoolOptions } from './pool.js';
export { DEFAULT_LIMITS, SandboxLimitsSchema, type SandboxLimits } from './program.js';
