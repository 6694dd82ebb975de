import { newQuickJSWASMModule } from 'quickjs-emscripten';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { Evaluation, EvaluationResult, Scope } from '../../../src/engine/evaluation.js';
import { closeGuestContext, openGuestContext, type GuestContext } from '../../../src/workflow/sandbox/guest-context.js';
import { createSandboxEvaluator, InlineSandbox, SandboxPool, type SandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { prepareEvaluation } from '../../../src/workflow/sandbox/prepare.js';
import { DEFAULT_LIMITS, type SandboxLimits } from '../../../src/workflow/sandbox/program.js';
import type { Job } from '../../../src/workflow/sandbox/run-job.js';

type Code = NonNullable<Evaluation['code']>;

/** Code as the loader classifies it. */
export const expr = (source: string): Code => ({ kind: 'expression', source });
export const stmts = (source: string): Code => ({ kind: 'statements', source });
export const template = (source: string): Code => ({ kind: 'template', source });
export const handler = (name: string): Code => ({ kind: 'handler', name });

/** A scope with nothing in it but what the test gives. */
export function scopeOf(over: Partial<Scope> = {}): Scope {
  return { common_data: {}, input: null, contexts: {}, agents: {}, last_agent_response: null, last_tool_calls: [], ...over };
}

/** An evaluation of one piece of code. */
export function codeEvaluation(code: Code, scope: Scope = scopeOf(), purpose: Evaluation['purpose'] = 'enter', workflow = 'wf'): Evaluation {
  return { workflow, state: 's', purpose, code, scope };
}

/** A transitions evaluation: condition/before pairs in order. */
export function transitionsEvaluation(transitions: { condition: Code | null; before: Code | null }[], scope: Scope = scopeOf()): Evaluation {
  return { workflow: 'wf', state: 's', purpose: 'transitions', transitions, scope };
}

/** The job the evaluator sends for an evaluation of code without script.js, its whole scope as it is (for tests that drive a guest context directly). */
export function jobOf(evaluation: Evaluation): Job {
  const prepared = prepareEvaluation(evaluation, null, DEFAULT_LIMITS);
  if (!prepared.ok) throw new Error(prepared.error);
  return { session: 's', parts: prepared.job.parts, scope: JSON.stringify(evaluation.scope), script: null, limits: DEFAULT_LIMITS };
}

/** A hardened guest context for the tests of one `describe` (opened before them, closed after them); call it inside the `describe`. */
export function guestContextFor(limits: SandboxLimits = DEFAULT_LIMITS): () => GuestContext {
  let guest: GuestContext | null = null;
  beforeAll(async () => {
    guest = openGuestContext(await newQuickJSWASMModule(), limits);
  });
  afterAll(() => {
    if (guest) closeGuestContext(guest);
  });
  return () => guest!;
}

/** The result of an evaluation that succeeded; throws with the sandbox's error otherwise. */
export function succeeded(result: EvaluationResult): Extract<EvaluationResult, { ok: true }> {
  if (!result.ok) throw new Error(result.error);
  return result;
}

/** The value of an evaluation that succeeded; throws with the sandbox's error otherwise. */
export async function succeededValue(result: Promise<EvaluationResult>): Promise<unknown> {
  return succeeded(await result).value;
}

/** The error of a failed result (fails the test when it succeeded). */
export function errorOf(result: EvaluationResult): string {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result.error;
}

/** Seed 001's script.js: exported handlers beside helpers, console output, a context message. */
export const SEED_001_SCRIPT = `
/**
 * Custom workflow script functions
 */
export function initializeWorkflow() {
    this.common_data.iteration_count = 0;
    console.log(\`Starting workflow: \${this.common_data.task_description}\`);
}

export function prepareAnalysis() {
    this.common_data.analysis_phase = 'requirements';
    const context = this.context.getContext('analysis_context');
    context.addMessage({
        role: 'system',
        content: \`Analysis phase: \${this.common_data.analysis_phase}\`,
    });
}

export function processAnalysis() {
    const response = this.last_response;
    this.common_data.analysis_result = {
        complexity: this.extractComplexity(response),
        requirements: extractRequirements(response),
    };
    console.log('Analysis completed:', this.common_data.analysis_result);
}

export function decideNextStep() {
    const analysis = this.common_data.analysis_result;
    if (analysis.complexity === 'high') {
        return 'detailed_planning';
    } else if (analysis.complexity === 'medium') {
        return 'implement';
    } else {
        return 'simple_implementation';
    }
}

export function handleWorkflowError() {
    const error = this.last_error;
    this.common_data.error_count = (this.common_data.error_count || 0) + 1;
    console.log(\`\${error.state} failed: \${error.message}\`);
    if (this.common_data.error_count > 3) {
        return 'stop';
    }
    return 'retry';
}

function extractComplexity(response) {
    if (response.includes('complex') || response.includes('difficult')) {
        return 'high';
    } else if (response.includes('moderate') || response.includes('medium')) {
        return 'medium';
    }
    return 'low';
}

function extractRequirements(response) {
    const requirements = [];
    const lines = response.split('\\n');
    for (const line of lines) {
        if (line.includes('requirement') || line.includes('need')) {
            requirements.push(line.trim());
        }
    }
    return requirements;
}
`;

/**
 * The two places a session's sandbox context can be, for attacks run in both: a pool thread, and the calling
 * thread (no deadline and no giving up on a session there, so every job that can run there does).
 */
export const PLACEMENTS = [
  { placement: 'on a pool thread', inline: false as const },
  { placement: 'on the calling thread', inline: new InlineSandbox({ wallMs: 600_000, maxFallbacks: Number.POSITIVE_INFINITY }) },
];

/**
 * Sessions (one per script) sharing a one-thread pool, so an attack and the probe after it meet in the same
 * worker; on the calling thread each has run `warm` (its first job goes to the pool, its context there is
 * made after it). Registers the suite's hooks; after it, at least `minInline` jobs ran on the calling thread.
 */
export function sandboxSessions(inline: InlineSandbox | false, scripts: string[], warm: Evaluation, minInline: number): () => SandboxEvaluator[] {
  const pool = new SandboxPool({ size: 1 });
  let sessions: SandboxEvaluator[] = [];
  beforeAll(async () => {
    sessions = scripts.map((script) => createSandboxEvaluator({ pool, inline, scriptFor: () => script }));
    if (!inline) return;
    await inline.ready();
    for (const s of sessions) await s.evaluate(warm);
  });
  // A context thrown away (an attack that failed or left the global object dirty) is made again after the next job.
  beforeEach(() => new Promise((resolve) => setImmediate(resolve)));
  afterAll(async () => {
    await Promise.all(sessions.map((s) => s.close()));
    await pool.close();
    if (inline) expect(inline.counts.inline).toBeGreaterThan(minInline);
  });
  return () => sessions;
}
