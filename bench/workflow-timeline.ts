// One pool transition taken apart: the jobs and results a session really sent, replayed through a worker
// that runs them as the pool's does and stamps each step, next to an echo worker (the crossing floor: the same
// messages, no QuickJS) and the evaluator's host side with an instant pool. CPU per thread from
// /proc/thread-self/schedstat (nanoseconds on CPU, this thread only); wall steps from a clock both threads share.
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { Evaluation } from '../src/engine/evaluation.js';
import type { Job } from '../src/workflow/sandbox/run-job.js';
import type * as SandboxModule from '../src/workflow/sandbox/index.js';
import { median } from './stats.js';

/** What a session sent the pool, in order: each evaluation, its job and the worker's answer. */
export interface Recorded {
  evaluations: Evaluation[];
  jobs: Job[];
  results: string[];
}

/** CPU (µs) per job of the thread that runs sessions and of the worker, and the median wall steps (µs). */
export interface Timeline {
  hostCpu: number;
  workerCpu: number;
  wall: { deliver: number; guest: number; reply: number; back: number; total: number };
}

/** This thread's CPU time in µs (Linux). */
export function threadCpu(): number {
  return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1000;
}

const now = () => performance.timeOrigin + performance.now();

// echo: answers each job with the answer recorded for it (same shape and size, nothing run). run: as the pool's worker.
const TIMELINE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { performance } = require('node:perf_hooks');
const cpu = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1000;
const now = () => performance.timeOrigin + performance.now();
(async () => {
  let run = null;
  if (!workerData.echo) {
    const { newQuickJSWASMModule } = await import(workerData.quickjs);
    const { openGuestContext } = await import(workerData.guest);
    const { runJob } = await import(workerData.runJob);
    const module = await newQuickJSWASMModule();
    let guest = null;
    run = (job) => { guest ??= openGuestContext(module, job.limits); return runJob(job, guest).result; };
  }
  parentPort.on('message', (m) => {
    if (m.type === 'cpu') return parentPort.postMessage({ type: 'cpu', cpu: cpu() });
    const received = now();
    const result = run ? run(m.job) : workerData.results[m.id % workerData.results.length];
    const ran = now();
    parentPort.postMessage({ type: 'result', id: m.id, result, damaged: false, stamps: [received, ran, now()] });
  });
  parentPort.postMessage({ type: 'ready' });
})();`;

/** Replays the recorded jobs through a worker (echo: the crossing floor), `count` times after a warm-up. */
export async function replay(recorded: Recorded, echo: boolean, count: number, urls: { quickjs: string; guest: string; runJob: string }): Promise<Timeline> {
  const w = new Worker(TIMELINE_WORKER, { eval: true, workerData: { ...urls, echo, results: recorded.results } });
  await new Promise((resolve) => w.once('message', resolve));
  const jobs = recorded.jobs;
  let settle: (m: { cpu?: number; stamps?: number[] }) => void = () => undefined;
  w.on('message', (m) => settle(m));
  const ask = (message: unknown) =>
    new Promise<{ cpu?: number; stamps?: number[] }>((resolve) => {
      settle = resolve;
      w.postMessage(message);
    });
  const steps: number[][] = [];
  const round = async (n: number, keep: boolean) => {
    for (let i = 0; i < n; i++) {
      const sent = now();
      // As the pool sends it: the job object, cloned by postMessage.
      const m = await ask({ type: 'job', id: i, job: jobs[i % jobs.length] });
      const back = now();
      const [received, ran, replied] = m.stamps!;
      if (keep) steps.push([received! - sent, ran! - received!, replied! - ran!, back - replied!, back - sent]);
    }
  };
  await round(200, false);
  const w0 = (await ask({ type: 'cpu' })).cpu!;
  const h0 = threadCpu();
  await round(count, true);
  const h1 = threadCpu();
  const w1 = (await ask({ type: 'cpu' })).cpu!;
  await w.terminate();
  const at = (k: number) => median(steps.map((s) => s[k]! * 1000));
  return { hostCpu: (h1 - h0) / count, workerCpu: (w1 - w0) / count, wall: { deliver: at(0), guest: at(1), reply: at(2), back: at(3), total: at(4) } };
}

/** CPU (µs) per evaluation of the evaluator's host side (scope reads, job build, result check) on a pool that answers at once with the recorded answers. */
export async function hostSide(sandbox: typeof SandboxModule, recorded: Recorded, script: string, count: number): Promise<number> {
  let at = 0;
  const instant = { run: async () => recorded.results[at++ % recorded.results.length]!, warm() {}, release() {}, started: 1 };
  const evaluator = sandbox.createSandboxEvaluator({ pool: instant as unknown as InstanceType<typeof sandbox.SandboxPool>, scriptFor: () => script });
  const all = recorded.evaluations;
  for (let i = 0; i < 200; i++) await evaluator.evaluate(all[i % all.length]!);
  at = 0;
  const c0 = threadCpu();
  for (let i = 0; i < count; i++) await evaluator.evaluate(all[i % all.length]!);
  const cpu = (threadCpu() - c0) / count;
  await evaluator.close();
  return cpu;
}

/** CPU (µs) so far of every thread of the process, by thread id, with its name (Linux). */
export function threadsCpu(): Map<string, { name: string; cpu: number }> {
  const out = new Map<string, { name: string; cpu: number }>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      out.set(tid, { name, cpu: Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1000 });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/** CPU (µs) each thread spent between two readings of threadsCpu, largest first (named by id; the main thread "main"). */
export function cpuByThread(before: ReturnType<typeof threadsCpu>, after: ReturnType<typeof threadsCpu>): [string, number][] {
  const out: [string, number][] = [];
  for (const [tid, now] of after) out.push([tid === String(process.pid) ? 'main' : tid, now.cpu - (before.get(tid)?.cpu ?? 0)]);
  return out.sort((a, b) => b[1] - a[1]);
}
