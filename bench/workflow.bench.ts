// Declarative workflows on the engine. CPU per transition of a workflow whose states run script.js
// handlers (pre, post, transition handler) and a condition in the QuickJS sandbox (small jobs on the calling
// thread, as sessions run them; and every job on a pool thread, as before), next to the same
// workflow with its code as plain host functions (the floor: everything but the sandbox) and a team
// transition, all around an instant model, interleaved. Then the sandbox's start: how long a new workflow
// session waits for its first evaluation (a cold pool, and the process's warm one) and 50 sessions started
// at once (on the shared pool, and each on a thread of its own as before the pool). Last, parallel fan-out
// of 3 and 10 branches whose model takes 200 ms: the wall time to the join next to the slowest branch.
// Last, the crossing alone: the bench's own jobs run on this thread, sent to a worker by postMessage (as the
// pool does), and over a SharedArrayBuffer channel, CPU per job (measured no cheaper: the pool keeps postMessage).
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { newQuickJSWASMModule } from 'quickjs-emscripten';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ChainStep, Evaluation, EvaluationResult } from '../src/engine/evaluation.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import type { Evaluator } from '../src/kernel/effect-runner.js';
import type * as OpenSessionModule from '../src/session/open-session.js';
import type { AgentPlan, StatePlan, WorkflowPlan } from '../src/workflow/run/plan.js';
import type * as GuestContextModule from '../src/workflow/sandbox/guest-context.js';
import type * as GuestModule from '../src/workflow/sandbox/guest.js';
import type * as GuestModulesModule from '../src/workflow/sandbox/guest-modules.js';
import type * as SandboxModule from '../src/workflow/sandbox/index.js';
import type * as RunJobModule from '../src/workflow/sandbox/run-job.js';
import type { Job } from '../src/workflow/sandbox/run-job.js';
import type * as TierRunModule from '../src/workflow/sandbox/tier/run.js';
import type { SandboxEvaluator } from '../src/workflow/sandbox/index.js';
import { studio } from '../tests/helpers/team.js';
import { interleaved, median, ms, QUICK, ratio } from './stats.js';
import { expr, state } from '../tests/helpers/workflow-plan.js';
import { CODE } from './code-under-test.js';
import { guestBreakdown } from './guest-breakdown.js';
import { cpuByThread, hostSide, replay, threadCpu, threadsCpu, type Recorded, type Timeline } from './workflow-timeline.js';

// The engine and the sandbox from dist/ (what troupe runs; `npm run bench` builds it) unless BENCH_CODE=src: through
// tsx every closure of src/ pays esbuild's __name, on the thread that runs sessions and in each sandbox thread.
const tree = new URL(`../${CODE}/`, import.meta.url);
const fromTree = (path: string) => new URL(`${path}${CODE === 'dist' ? '.js' : '.ts'}`, tree);
if (
  CODE === 'dist' &&
  (!existsSync(fromTree('workflow/sandbox/worker')) || statSync(fromTree('workflow/sandbox/guest')).mtimeMs < statSync(new URL('../src/workflow/sandbox/guest.ts', import.meta.url)).mtimeMs)
) {
  throw new Error('bench: dist/ is missing or older than src/workflow/sandbox: run `npm run build` first (or BENCH_CODE=src)');
}
const { openSession } = (await import(fromTree('session/open-session').href)) as typeof OpenSessionModule;
const { createSandboxEvaluator, SandboxPool, sharedInlineSandbox, sharedSandboxPool } = (await import(fromTree('workflow/sandbox/index').href)) as typeof SandboxModule;
const { hostTierCounts } = (await import(fromTree('workflow/sandbox/tier/run').href)) as typeof TierRunModule;
// Steps answer what the host tier interprets themselves; the sandbox's own figures (on the pool, on the calling
// thread, as host functions, its start) are measured with the steps leaving it every evaluation that runs code
// (openSession's tierInStep false).

const LOOPS = QUICK ? 200 : 400;
// Figures are per transition from this one on: opening and starting a session are not transitions.
const FROM = 20;
const RUNS = QUICK ? 3 : 9;
const START_RUNS = QUICK ? 3 : 7;
const SESSIONS = 50;
const LATENCY_MS = 200;

const template = (source: string) => ({ kind: 'template' as const, source });
const handler = (name: string) => ({ kind: 'handler' as const, name });
const agent = (id: string): AgentPlan => ({
  id,
  context: 'c',
  role: 'assistant',
  name: id,
  systemMessage: `You are ${id}.`,
  model: 'base',
  parsingTools: [],
  requestUserInput: false,
  tools: [],
  maxToolSteps: 20,
});
const workflow = (name: string, agents: string[], states: StatePlan[], script: string | null = null): WorkflowPlan => ({
  name,
  description: '',
  input: { name: 'task' },
  output: { name: 'result' },
  variables: {},
  contexts: [{ name: 'c', starting: [], maxLength: 20_000 }],
  agents: agents.map(agent),
  states,
  start: states[0]!.name,
  resume: null,
  errorHandler: null,
  script,
  subWorkflows: {},
  source: 'bench',
  maxTurns: 100_000,
});

const SCRIPT = `
export function pre() { this.common_data.round = (this.common_data.round || 0) + 1; }
export function post() { this.common_data.last = this.last_response; }
export function choose() { return this.common_data.round > 0 ? 'review' : 'write'; }
`;
const CONDITION = "last_agent_response !== 'done'";

/** A writer and a reviewer in a loop: script.js handlers before and after the writer's turn and choosing the next state, a condition after the review. */
const handlers = workflow(
  'handlers',
  ['writer', 'reviewer'],
  [
    state({ name: 'write', enter: handler('pre'), agent: 'writer', input: template('Round {round} of {task}'), after: handler('post'), decide: handler('choose') }),
    state({
      name: 'review',
      agent: 'reviewer',
      input: template('Review: {last}'),
      transitions: [
        { target: 'write', condition: expr(CONDITION), before: null },
        { target: 'stop', condition: expr('true'), before: null },
      ],
    }),
    state({ name: 'stop', final: true }),
  ],
  SCRIPT,
);

/** The same workflow's code as host functions: what the workflow costs without the sandbox. */
const PLAIN: Record<string, (self: { common_data: Record<string, unknown>; last_agent_response: string | null }) => unknown> = {
  pre: (self) => {
    self.common_data.round = ((self.common_data.round as number) || 0) + 1;
  },
  post: (self) => {
    self.common_data.last = self.last_agent_response;
  },
  choose: (self) => ((self.common_data.round as number) > 0 ? 'review' : 'write'),
  [CONDITION]: (self) => self.last_agent_response !== 'done',
  true: () => true,
};

/** An Evaluator running PLAIN in the host (no isolation at all): the floor under the sandbox. */
const plainEvaluator: Evaluator = {
  async evaluate(evaluation: Evaluation): Promise<EvaluationResult> {
    const run = (part: Pick<Evaluation, 'code' | 'transitions'>, common_data: Record<string, unknown>): Extract<EvaluationResult, { ok: true }> => {
      const self = { common_data: structuredClone(common_data), last_agent_response: evaluation.scope.last_agent_response };
      const call = (code: NonNullable<Evaluation['code']>) => PLAIN[code.kind === 'handler' ? code.name : code.source]!(self);
      const value = part.transitions ? part.transitions.findIndex((t) => !t.condition || call(t.condition) === true) : call(part.code!);
      return { ok: true, value, common_data: self.common_data };
    };
    // What the engine asks for next comes along, as from the sandbox: after the decision, the chosen state's entry code.
    const chain = (step: ChainStep, common_data: Record<string, unknown>): EvaluationResult => {
      const result = run(step, common_data);
      const chosen = step.transitions ? step.transitions[result.value as number]?.target : typeof result.value === 'string' ? result.value : undefined;
      const following = step.next ?? (chosen !== undefined ? step.targets?.[chosen] : undefined);
      return following ? { ...result, next: chain(following, result.common_data) } : result;
    };
    return chain(evaluation, evaluation.scope.common_data);
  },
};

/** `n` branches at once, joined when all are done. */
const fanout = (n: number) => {
  const ids = Array.from({ length: n }, (_, i) => `b${i}`);
  return workflow(
    `fanout_${n}`,
    ids.map((id) => `impl_${id}`),
    [
      state({
        name: 'implement',
        parallel: { branches: ids.map((id) => ({ id, agent: `impl_${id}`, input: null, workspace: false })), join: 'all', onFailure: 'continue', timeoutMs: 60_000, into: 'results' },
        transitions: [{ target: 'stop', condition: null, before: null }],
      }),
      state({ name: 'stop', final: true }),
    ],
  );
};

/** Answers workflow turns ('again' until the last, then 'done') and team turns (a handoff round the studio), after `delayMs`. */
class BenchModel implements ChatModel {
  readonly label = 'bench';
  private calls = 0;
  constructor(
    private readonly loops: number,
    private readonly delayMs = 0,
  ) {}
  async generate(req: ChatRequest): Promise<ChatResponse> {
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    this.calls += 1;
    if (req.meta.purpose !== 'persona' || !req.meta.handoffTo) return { text: this.calls >= this.loops ? 'done' : 'again', toolCalls: [], usage: null, finishReason: 'stop', model: 'bench' };
    const next = req.meta.handoffTo[this.calls % req.meta.handoffTo.length]!;
    const directive = this.calls >= this.loops ? { transition: 'RESPOND_TO_USER' } : { transition: 'HANDOFF_TO_AGENT', next_agent: next };
    return { text: 'again', toolCalls: [{ name: 'handoff_directive', arguments: JSON.stringify(directive) }], usage: null, finishReason: 'tool_calls', model: 'bench' };
  }
}

/** Counts what an evaluator is asked (sandbox jobs) and when the first answer came. */
function watched(inner: Evaluator): Evaluator & { jobs: number; first: Promise<number> } {
  let settle: (at: number) => void = () => undefined;
  const first = new Promise<number>((resolve) => (settle = resolve));
  const out = {
    jobs: 0,
    first,
    async evaluate(evaluation: Evaluation, signal?: AbortSignal): Promise<EvaluationResult> {
      out.jobs += 1;
      const result = await inner.evaluate(evaluation, signal);
      settle(performance.now());
      return result;
    },
  };
  return out;
}

type PerTransition = { cpu: number; main: number; wall: number; jobs: number; inline: number; held: number; tier: number; fallback: number; threads: [string, number][] };
type Kind = 'team' | 'sandbox' | 'pooled' | 'plain' | 'tier';

/** CPU (every thread of the process: the sandbox's too) and wall time per transition of a session on an instant model, from transition FROM on. */
async function perTransition(kind: Kind): Promise<PerTransition> {
  const sandboxed = kind === 'sandbox' || kind === 'pooled' || kind === 'tier';
  // tier: what sessions run (the host tier, the pool for what it leaves); pooled: every job on a worker thread; sandbox: small jobs on the calling thread first (opt-in).
  const sandbox = sandboxed ? createSandboxEvaluator({ pool: sharedSandboxPool(), scriptFor: () => SCRIPT, inline: kind === 'sandbox', hostTier: kind === 'tier' }) : null;
  const evaluator = kind === 'team' ? null : watched(sandbox ?? plainEvaluator);
  const session = await openSession({
    team: studio({ maxTurns: 100_000 }),
    ...(kind !== 'team' ? { workflow: handlers } : {}),
    ...(evaluator ? { evaluator } : {}),
    tierInStep: kind === 'tier',
    model: new BenchModel(LOOPS),
    id: 'bench',
    env: {},
    memory: false,
  });
  session.team.def.limits = { ...session.team.def.limits, ping_pong: 100_000 };
  let transitions = 0;
  let t0 = 0;
  let c0 = process.cpuUsage();
  let m0 = 0;
  let all0 = new Map() as ReturnType<typeof threadsCpu>;
  let jobs0 = 0;
  let inline0 = 0;
  let ran0 = 0;
  let held0 = 0;
  let tier0 = 0;
  let fallback0 = 0;
  const counts = sharedInlineSandbox().counts;
  sharedInlineSandbox().measure = true;
  session.subscribe((e) => {
    if (e.type !== 'transition' || ++transitions !== FROM) return;
    t0 = performance.now();
    c0 = process.cpuUsage();
    m0 = threadCpu();
    all0 = threadsCpu();
    jobs0 = evaluator?.jobs ?? 0;
    inline0 = counts.inline;
    ran0 = counts.ran;
    held0 = counts.heldMicros;
    tier0 = hostTierCounts.tier;
    fallback0 = hostTierCounts.sandbox;
  });
  session.start('bench task');
  await session.settled();
  const cpu = process.cpuUsage(c0);
  const main = (threadCpu() - m0) / 1000;
  const n = transitions - FROM;
  const threads = cpuByThread(all0, threadsCpu()).map(([name, us]): [string, number] => [name, us / 1000 / n]);
  const jobs = (evaluator?.jobs ?? 0) - jobs0;
  const ran = counts.ran - ran0;
  const held = ran > 0 ? (counts.heldMicros - held0) / 1000 / ran : 0;
  const tier = hostTierCounts.tier - tier0;
  const fallback = hostTierCounts.sandbox - fallback0;
  const out = {
    cpu: (cpu.user + cpu.system) / 1000 / n,
    main: main / n,
    wall: (performance.now() - t0) / n,
    jobs: jobs / n,
    inline: jobs > 0 ? (counts.inline - inline0) / jobs : 0,
    held,
    tier,
    fallback,
    threads,
  };
  await session.stop();
  await sandbox?.close();
  return out;
}

/** Wall time from opening a workflow session as sessions run (the host tier, answering in the step) to its first agent call: its first state's code answered. */
async function firstAnswer(): Promise<number> {
  const sandbox = createSandboxEvaluator({ pool: sharedSandboxPool(), scriptFor: () => SCRIPT, hostTier: true });
  const t0 = performance.now();
  const session = await openSession({ team: studio(), workflow: handlers, evaluator: sandbox, model: new BenchModel(1), id: 'bench', env: {}, memory: false });
  let at = 0;
  session.subscribe((e) => {
    if (e.type === 'agent_started' && at === 0) at = performance.now();
  });
  session.start('bench task');
  await session.settled();
  await session.stop();
  await sandbox.close();
  return at - t0;
}

/** Wall time from opening a workflow session to its first evaluation's answer. */
async function firstEvaluation(sandbox: SandboxEvaluator): Promise<number> {
  const t0 = performance.now();
  const evaluator = watched(sandbox);
  const session = await openSession({ team: studio(), workflow: handlers, evaluator, tierInStep: false, model: new BenchModel(1), id: 'bench', env: {}, memory: false });
  session.start('bench task');
  const at = await evaluator.first;
  await session.settled();
  await session.stop();
  await sandbox.close();
  return at - t0;
}

/** Wall time until each of SESSIONS workflow sessions, opened at once, has its first evaluation's answer. */
async function manySessions(sandbox: () => { evaluator: SandboxEvaluator; close: () => Promise<void> }): Promise<number> {
  const t0 = performance.now();
  const sessions = await Promise.all(
    Array.from({ length: SESSIONS }, async (_, i) => {
      const own = sandbox();
      const evaluator = watched(own.evaluator);
      const session = await openSession({ team: studio(), workflow: handlers, evaluator, tierInStep: false, model: new BenchModel(1), id: `bench-${i}`, env: {}, memory: false });
      session.start('bench task');
      return { session, own, first: evaluator.first };
    }),
  );
  const last = Math.max(...(await Promise.all(sessions.map((s) => s.first))));
  for (const s of sessions) {
    await s.session.settled();
    await s.session.stop();
    await s.own.evaluator.close();
    await s.own.close();
  }
  return last - t0;
}

/** Wall time from start to the join of a fan-out whose every branch's model takes LATENCY_MS. */
async function fanoutWall(n: number): Promise<number> {
  const session = await openSession({ team: studio(), workflow: fanout(n), tierInStep: false, model: new BenchModel(1, LATENCY_MS), id: 'bench', env: {}, memory: false });
  const t0 = performance.now();
  let joined = 0;
  session.subscribe((e) => {
    if (e.type === 'joined') joined = performance.now() - t0;
  });
  session.start('bench task');
  await session.settled();
  await session.stop();
  return joined;
}

// Node 20 has it; TypeScript's lib for this target does not declare it.
const waitAsync = (Atomics as unknown as { waitAsync(array: Int32Array, index: number, value: number): { async: boolean; value: Promise<string> | string } }).waitAsync;

// A worker that runs jobs as the pool's does, taking them by postMessage or from a SharedArrayBuffer (the job as
// UTF-8, the worker in Atomics.wait, the caller in Atomics.waitAsync): the crossing alone, outside the pool.
const CROSSING_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { newQuickJSWASMModule } = await import(workerData.quickjs);
  const { openGuestContext } = await import(workerData.guest);
  const { runJob } = await import(workerData.runJob);
  const module = await newQuickJSWASMModule();
  let guest = null;
  if (workerData.shared) {
    const control = new Int32Array(workerData.shared, 0, 4), bytes = new Uint8Array(workerData.shared, 16), encoder = new TextEncoder(), decoder = new TextDecoder();
    parentPort.postMessage('ready');
    for (;;) {
      Atomics.wait(control, 0, 0);
      const job = JSON.parse(decoder.decode(bytes.subarray(0, control[1])));
      guest ??= openGuestContext(module, job.limits);
      control[1] = encoder.encodeInto(runJob(job, guest).result, bytes).written;
      Atomics.store(control, 0, 0);
      Atomics.store(control, 2, 1);
      Atomics.notify(control, 2);
    }
  }
  parentPort.on('message', ({ id, job }) => {
    guest ??= openGuestContext(module, job.limits);
    parentPort.postMessage({ id, result: runJob(job, guest).result });
  });
  parentPort.postMessage('ready');
})();`;

/** CPU per job of the bench's own jobs (every thread): run on this thread, sent to a worker by postMessage, and over a SharedArrayBuffer. */
async function crossing(): Promise<Record<'here' | 'message' | 'shared', number[]> & { timelines: { run: Timeline[]; echo: Timeline[]; host: number[] }; sample: Job[] }> {
  const jobs: Job[] = [];
  const recorded: Recorded = { evaluations: [], jobs: [], results: [] };
  const pool = new SandboxPool({ size: 1, entry: () => fromTree('workflow/sandbox/worker') });
  const run = pool.run.bind(pool);
  let asked: Evaluation | null = null;
  pool.run = async (job, signal) => {
    jobs.push(structuredClone(job));
    const evaluation = asked!;
    const result = await run(job, signal);
    if (typeof result === 'string') recorded.evaluations.push(evaluation), recorded.jobs.push(structuredClone(job)), recorded.results.push(result);
    return result;
  };
  const evaluator = createSandboxEvaluator({ pool, scriptFor: () => SCRIPT });
  const session = await openSession({
    team: studio(),
    workflow: handlers,
    evaluator: { evaluate: (evaluation, signal) => ((asked = structuredClone(evaluation)), evaluator.evaluate(evaluation, signal)) },
    tierInStep: false,
    model: new BenchModel(60),
    id: 'bench',
    env: {},
    memory: false,
  });
  session.start('bench task');
  await session.settled();
  await session.stop();
  await pool.close();
  const sample = jobs.slice(FROM);
  if (process.env.BENCH_DUMP_JOBS) (await import('node:fs')).writeFileSync(process.env.BENCH_DUMP_JOBS, JSON.stringify(recorded));
  const { openGuestContext } = (await import(fromTree('workflow/sandbox/guest-context').href)) as typeof GuestContextModule;
  const { runJob } = (await import(fromTree('workflow/sandbox/run-job').href)) as typeof RunJobModule;
  const quickjs = pathToFileURL(createRequire(import.meta.url).resolve('quickjs-emscripten')).href;
  const guest = openGuestContext(await newQuickJSWASMModule(), sample[0]!.limits);
  const JOBS = QUICK ? 500 : 2000;
  const perJob = async (once: (job: Job) => unknown): Promise<number> => {
    for (let i = 0; i < 200; i++) await once(sample[i % sample.length]!);
    const c0 = process.cpuUsage();
    for (let i = 0; i < JOBS; i++) await once(sample[i % sample.length]!);
    const cpu = process.cpuUsage(c0);
    return (cpu.user + cpu.system) / 1000 / JOBS;
  };
  const worker = async (shared: SharedArrayBuffer | null) => {
    const w = new Worker(CROSSING_WORKER, { eval: true, workerData: { quickjs, guest: fromTree('workflow/sandbox/guest-context').href, runJob: fromTree('workflow/sandbox/run-job').href, shared } });
    await new Promise((resolve) => w.once('message', resolve));
    return w;
  };
  const message = async () => {
    const w = await worker(null);
    let id = 0;
    const waiting = new Map<number, (result: string) => void>();
    w.on('message', (m: { id: number; result: string }) => waiting.get(m.id)?.(m.result));
    const cpu = await perJob((job) => new Promise((resolve) => (waiting.set(++id, resolve), w.postMessage({ id, job }))));
    await w.terminate();
    return cpu;
  };
  const shared = async () => {
    const buffer = new SharedArrayBuffer(16 + 1024 * 1024);
    const control = new Int32Array(buffer, 0, 4);
    const bytes = new Uint8Array(buffer, 16);
    const [encoder, decoder] = [new TextEncoder(), new TextDecoder()];
    const w = await worker(buffer);
    // Atomics.waitAsync does not keep the process alive; a job in flight does, as the pool's backstop timer would.
    const alive = setInterval(() => undefined, 60_000);
    const cpu = await perJob(async (job) => {
      control[1] = encoder.encodeInto(JSON.stringify(job), bytes).written;
      Atomics.store(control, 2, 0);
      Atomics.store(control, 0, 1);
      Atomics.notify(control, 0);
      const wait = waitAsync(control, 2, 0);
      if (wait.async) await wait.value;
      return decoder.decode(bytes.subarray(0, control[1]));
    });
    clearInterval(alive);
    await w.terminate();
    return cpu;
  };
  const timelines: { run: Timeline[]; echo: Timeline[]; host: number[] } = { run: [], echo: [], host: [] };
  const urls = { quickjs, guest: fromTree('workflow/sandbox/guest-context').href, runJob: fromTree('workflow/sandbox/run-job').href };
  for (const key of ['evaluations', 'jobs', 'results'] as const) recorded[key].splice(0, FROM);
  const rounds = await interleaved(QUICK ? 3 : 5, 0, {
    here: () => perJob((job) => runJob(structuredClone(job), guest)),
    message,
    shared,
    timeline: async () => {
      timelines.run.push(await replay(recorded, false, JOBS, urls));
      timelines.echo.push(await replay(recorded, true, JOBS, urls));
      timelines.host.push(await hostSide(await import(fromTree('workflow/sandbox/index').href), recorded, SCRIPT, JOBS));
      return 0;
    },
  });
  return { ...rounds, timelines, sample };
}

/** The median of each figure of a list of timelines. */
function medianTimeline(xs: Timeline[]): Timeline {
  const m = (f: (t: Timeline) => number) => median(xs.map(f));
  return {
    hostCpu: m((t) => t.hostCpu),
    workerCpu: m((t) => t.workerCpu),
    wall: { deliver: m((t) => t.wall.deliver), guest: m((t) => t.wall.guest), reply: m((t) => t.wall.reply), back: m((t) => t.wall.back), total: m((t) => t.wall.total) },
  };
}

export default async function workflows(): Promise<void> {
  // BENCH_WORKFLOW=crossing: only the crossing and the timeline of a pool job (a quick look while working on them).
  // BENCH_WORKFLOW=<kind>: only that kind's transitions, a few times (to profile one of them).
  const only = process.env.BENCH_WORKFLOW;
  if (only === 'team' || only === 'sandbox' || only === 'pooled' || only === 'plain' || only === 'tier') {
    for (let i = 0; i < RUNS; i++) {
      const t = await perTransition(only);
      process.stdout.write(
        `${only}: ${ms(t.cpu)} CPU per transition, of which the thread that runs sessions ${ms(t.main)}; by thread: ${t.threads
          .slice(0, 6)
          .map(([name, x]) => `${name} ${ms(x)}`)
          .join(', ')}\n`,
      );
    }
    return;
  }
  if (only !== 'crossing' && only !== 'guest') await transitionsAndStart();
  if (CODE === 'dist') await printCrossing(only === 'guest');
}

// The CPU time a job took on the calling thread inside a session (set by transitionsAndStart, compared with the same jobs back to back below).
let heldInSession = 0;

async function transitionsAndStart(): Promise<void> {
  sharedSandboxPool().warm();
  // Interleaved, so drift in the machine's load hits all three alike.
  const kinds = ['team', 'tier', 'sandbox', 'pooled', 'plain'] as const;
  const t: Record<Kind, PerTransition[]> = { team: [], tier: [], sandbox: [], pooled: [], plain: [] };
  for (let round = 0; round < RUNS + 1; round++) {
    for (const kind of kinds) {
      const sample = await perTransition(kind);
      if (round > 0) t[kind].push(sample);
    }
  }
  const pick = (xs: PerTransition[], k: Exclude<keyof PerTransition, 'threads'>) => median(xs.map((x) => x[k]));
  heldInSession = pick(t.sandbox, 'held');
  const [team, wf, pooled, plain, tiered] = [pick(t.team, 'cpu'), pick(t.sandbox, 'cpu'), pick(t.pooled, 'cpu'), pick(t.plain, 'cpu'), pick(t.tier, 'cpu')];
  process.stdout.write(`CPU per transition (every thread of the process), instant model, ${LOOPS} turns from transition ${FROM} on, median of ${RUNS} interleaved runs, code from ${CODE}/:\n`);
  const [tierJobs, fellBack] = [t.tier.reduce((a, x) => a + x.tier, 0), t.tier.reduce((a, x) => a + x.fallback, 0)];
  process.stdout.write(
    `  workflow transition, as sessions run it (host tier)  ${ms(tiered).padStart(8)} = ${ratio(tiered, team)} a team transition (target <= 1.0x); the tier took ${tierJobs} evaluations, the sandbox ${fellBack}; wall ${ms(pick(t.tier, 'wall'))}\n`,
  );
  process.stdout.write(
    `  workflow transition, code in the QuickJS sandbox   ${ms(pooled).padStart(9)} = ${ratio(pooled, team)} a team transition (target <= 1.0x; the default: every job on the pool); ${pick(t.pooled, 'jobs').toFixed(2)} sandbox jobs per transition; wall ${ms(pick(t.pooled, 'wall'))}\n`,
  );
  process.stdout.write(
    `  the same, small jobs on the calling thread (opt-in) ${ms(wf).padStart(8)} = ${ratio(wf, team)} a team transition; ${(pick(t.sandbox, 'inline') * 100).toFixed(0)}% of jobs ran there, each taking ${ms(heldInSession)} of CPU there; wall ${ms(pick(t.sandbox, 'wall'))}\n`,
  );
  process.stdout.write(
    `  the same workflow, code as host functions (floor)  ${ms(plain).padStart(9)} = ${ratio(plain, team)} a team transition; the sandbox adds ${ms(Math.max(0, pooled - plain))}\n`,
  );
  process.stdout.write(`  team transition (agent turn + directive + arbiter) ${ms(team).padStart(9)}; wall ${ms(pick(t.team, 'wall'))}\n`);

  // The script's handlers and a pool warmed above: the warm figure is what every session after the first waits.
  const cold: number[] = [];
  const warm: number[] = [];
  const inStep: number[] = [];
  // `npm run bench` builds first: a new pool starts the compiled worker, as an installed troupe does (from
  // source, each thread would compile the worker's TypeScript first).
  const built = new URL('../dist/workflow/sandbox/worker.js', import.meta.url);
  const entry = existsSync(fileURLToPath(built)) ? { entry: () => built } : {};
  for (let i = 0; i < START_RUNS; i++) {
    const pool = new SandboxPool(entry);
    cold.push(await firstEvaluation(createSandboxEvaluator({ pool, scriptFor: () => SCRIPT })));
    await pool.close();
    warm.push(await firstEvaluation(createSandboxEvaluator({ pool: sharedSandboxPool(), scriptFor: () => SCRIPT })));
    inStep.push(await firstAnswer());
  }
  process.stdout.write(`a new workflow session, open to its first evaluation's answer (median of ${START_RUNS}):\n`);
  process.stdout.write(`  as sessions run it (the host tier, in the step), to its first agent call ${ms(median(inStep)).padStart(9)}\n`);
  process.stdout.write(`  on the process's warm pool                          ${ms(median(warm)).padStart(9)}\n`);
  process.stdout.write(`  on a pool started for it (the first session only)   ${ms(median(cold)).padStart(9)}${entry.entry ? '' : ' (the worker compiled from source: run npm run build first)'}\n`);
  const shared = await manySessions(() => ({ evaluator: createSandboxEvaluator({ pool: sharedSandboxPool(), scriptFor: () => SCRIPT }), close: async () => undefined }));
  const own = await manySessions(() => {
    const pool = new SandboxPool({ size: 1, ...entry });
    return { evaluator: createSandboxEvaluator({ pool, scriptFor: () => SCRIPT }), close: () => pool.close() };
  });
  process.stdout.write(`${SESSIONS} workflow sessions opened at once, until each has its first evaluation's answer:\n`);
  process.stdout.write(`  on the shared pool                                  ${ms(shared).padStart(9)}\n`);
  process.stdout.write(`  each on a sandbox thread of its own (before the pool) ${ms(own).padStart(9)}\n`);

  const f = await interleaved(RUNS, 1, { three: () => fanoutWall(3), ten: () => fanoutWall(10) });
  process.stdout.write(`parallel fan-out, every branch's model ${LATENCY_MS} ms, join all (median of ${RUNS} interleaved runs):\n`);
  for (const [n, wall] of [
    [3, median(f.three)],
    [10, median(f.ten)],
  ] as const) {
    process.stdout.write(`  ${String(n).padStart(2)} branches: start to join ${ms(wall).padStart(9)} = ${ratio(wall, LATENCY_MS)} the slowest branch (${LATENCY_MS} ms)\n`);
  }
}

async function printCrossing(guestOnly: boolean): Promise<void> {
  {
    const c = await crossing();
    const load = async <T>(path: string): Promise<T> => (await import(fromTree(path).href)) as T;
    const modules = {
      guestContext: await load<typeof GuestContextModule>('workflow/sandbox/guest-context'),
      guest: await load<typeof GuestModule>('workflow/sandbox/guest'),
      guestModules: await load<typeof GuestModulesModule>('workflow/sandbox/guest-modules'),
      runJob: await load<typeof RunJobModule>('workflow/sandbox/run-job'),
    };
    const b = await guestBreakdown(c.sample, modules, QUICK ? 3 : 7);
    const u = (x: number) => ms(x / 1000).padStart(8);
    process.stdout.write(`the guest's share of a job, on this thread (CPU per job, ${b.parts.toFixed(2)} parts per job, median of ${QUICK ? 3 : 7}; see bench/guest-breakdown.ts):\n`);
    process.stdout.write(
      `  runJob, whole ${u(b.whole)}${heldInSession > 0 ? ` back to back (inside a session, between the engine's work: ${u(heldInSession * 1000)}, caches cold)` : ''}: the wasm crossing (handles, strings in and out, the call) ${u(b.crossing)}\n`,
    );
    process.stdout.write(
      `  inside QuickJS: parse the scope (the fields parsed afresh for each part; the kept ones only when they changed: none in this bench) ${u(b.parse)}, build this ${u(b.build)} (+ this.last_response ${u(b.lastResponse)}), run the code ${u(b.execute)}, write the result ${u(b.finish)}, sweep ${u(b.sweep)}, the rest of a part ${u(b.rest)}\n`,
    );
    process.stdout.write(
      `  the rest (the host side: checking each part's answer, chaining; and stages colder in a real job than in the probe's loop) ${u(b.whole - b.crossing - b.parse - b.build - b.execute - b.finish - b.sweep - b.rest)}\n`,
    );
    if (guestOnly) return;
    const [here, message, shared] = [median(c.here), median(c.message), median(c.shared)];
    process.stdout.write(`the crossing, on the bench's own jobs (CPU per job, every thread, median of ${c.here.length} interleaved runs):\n`);
    process.stdout.write(`  run on this thread                                  ${ms(here).padStart(9)}\n`);
    process.stdout.write(`  sent to a worker by postMessage (the pool's way)    ${ms(message).padStart(9)} = ${ratio(message, here)}\n`);
    process.stdout.write(`  over a SharedArrayBuffer (Atomics.wait / waitAsync) ${ms(shared).padStart(9)} = ${ratio(shared, here)}\n`);
    const [run, echo, host] = [medianTimeline(c.timelines.run), medianTimeline(c.timelines.echo), median(c.timelines.host)];
    const us = (x: number) => ms(x / 1000).padStart(9);
    process.stdout.write(`one pool job taken apart (µs; CPU per thread from schedstat, wall steps median; the same messages to a worker running them and to an echo worker):\n`);
    process.stdout.write(`  evaluator's host side (scope reads, job build, result check), CPU ${us(host)}\n`);
    process.stdout.write(
      `  running worker: host thread CPU ${us(run.hostCpu)}, worker thread CPU ${us(run.workerCpu)}; wall: deliver ${us(run.wall.deliver)}, guest ${us(run.wall.guest)}, reply ${us(run.wall.reply)}, back ${us(run.wall.back)}, round trip ${us(run.wall.total)}\n`,
    );
    process.stdout.write(
      `  echo worker (the crossing floor): host thread CPU ${us(echo.hostCpu)}, worker thread CPU ${us(echo.workerCpu)}; wall: deliver ${us(echo.wall.deliver)}, reply ${us(echo.wall.reply)}, back ${us(echo.wall.back)}, round trip ${us(echo.wall.total)}\n`,
    );
    process.stdout.write(`  so per job: the thread crossing ${us(echo.hostCpu + echo.workerCpu)} CPU, the guest ${us(run.workerCpu - echo.workerCpu)} CPU (on this thread: ${us(here * 1000)})\n`);
  }
}
