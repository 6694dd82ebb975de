/** The workflow sandbox: workflow code run in QuickJS in a worker thread, never in the host. */
export { createSandboxEvaluator, type SandboxEvaluator, type SandboxOptions } from './evaluator.js';
export { DEFAULT_LIMITS, SandboxLimitsSchema, type SandboxLimits } from './program.js';
