// The sandbox jobs of SynthDev's grocery_store_test alone: a session of it runs once on the calling thread (from
// src/, instant scripted answers) with every job it sends recorded; the jobs are then run again and again through
// runJob in one guest context of their own, and the CPU per job printed. With a second tree (TREE=<a checkout of
// troupe with its packages>), the same is done with that tree's src/ in the same process, rounds interleaved:
// each tree records and runs its own jobs (what it sends is part of what it costs). SYNTHDEV_WORKFLOW: another
// copy of the workflow (bench/synthdev.bench.ts makes them). Not part of `npm run bench`: a tool for one change.
// Run: SYNTHDEV_DIR=<SynthDev checkout> [TREE=<other checkout>] [BREAKDOWN=1] node --import tsx bench/synthdev-jobs.ts [rounds]
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { newQuickJSWASMModule } from 'quickjs-emscripten';
import type { Job } from '../src/workflow/sandbox/run-job.js';

// The scripted answers bench/synthdev-troupe.mjs gives (plain JavaScript, shared with SynthDev's side).
const { scriptedModel } = (await import(new URL('./synthdev-script.mjs', import.meta.url).href)) as {
  scriptedModel: (rounds: number, byCalls: boolean) => { label: string; generate: (req: { messages: { role: string; content: string }[] }) => Promise<unknown> };
};

const dir = process.env.SYNTHDEV_DIR ?? '';
const rounds = Number(process.argv[2] ?? 7);
const workflowFile = process.env.SYNTHDEV_WORKFLOW ?? join(dir, 'src/config/workflows/grocery_store_test.json');
const byCalls = process.env.SYNTHDEV_WORKFLOW !== undefined;
const CUSTOMER_ROUNDS = 100;

type Tree = { name: string; jobs: Job[]; run: (jobs: Job[]) => number };

/** Records one session's jobs with a tree's src/, and a function that runs them in a fresh guest context (µs of CPU per job). */
async function tree(root: string, name: string): Promise<Tree> {
  const src = (path: string) => import(pathToFileURL(join(root, 'src', path)).href);
  const { openSession, loadWorkflowPlan, MemoryStore } = await src('index.ts');
  const { createSandboxEvaluator, InlineSandbox } = await src('workflow/sandbox/index.ts');
  const { openGuestContext, closeGuestContext } = await src('workflow/sandbox/guest-context.ts');
  const { runJob } = await src('workflow/sandbox/run-job.ts');
  const plan = loadWorkflowPlan(workflowFile, { roles: join(dir, 'src/config/roles'), env: {} });
  const model = scriptedModel(CUSTOMER_ROUNDS, byCalls);
  const jobs: Job[] = [];
  const inline = new InlineSandbox();
  await inline.ready();
  const run = inline.run.bind(inline);
  inline.run = (job: Job) => {
    jobs.push(structuredClone(job));
    return run(job);
  };
  const evaluator = createSandboxEvaluator({ scriptFor: (n: string) => (n === plan.name ? plan.script : null), inline });
  const session = await openSession({ workflow: plan, model, evaluator, store: new MemoryStore(), memory: false, env: {}, id: 'jobs', maxTurns: CUSTOMER_ROUNDS * 4 + 10 });
  session.start('I need pasta, tomatoes and bread for six.');
  await session.settled();
  await session.stop();
  await evaluator.close();
  const module = await newQuickJSWASMModule();
  return {
    name,
    jobs,
    run(list) {
      const guest = openGuestContext(module, list[0]!.limits);
      for (const job of list) runJob(job, guest);
      const c0 = process.cpuUsage();
      for (let r = 0; r < 3; r++) for (const job of list) runJob(job, guest);
      const c = process.cpuUsage(c0);
      closeGuestContext(guest);
      return (c.user + c.system) / (3 * list.length);
    },
  };
}

const trees = [await tree(resolve(new URL('..', import.meta.url).pathname), 'this tree')];
if (process.env.TREE) trees.push(await tree(resolve(process.env.TREE), process.env.TREE));
for (const t of trees) {
  const kept = t.jobs.reduce((n, j) => n + JSON.stringify(j.kept ?? {}).length, 0) / t.jobs.length;
  process.stdout.write(`${t.name}: ${t.jobs.length} jobs, kept fields ${kept.toFixed(0)} characters a job\n`);
}
const cpu = trees.map((): number[] => []);
for (let r = 0; r < rounds; r++) trees.forEach((t, i) => cpu[i]!.push(t.run(t.jobs)));
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
trees.forEach((t, i) => process.stdout.write(`${t.name}: ${median(cpu[i]!).toFixed(1)} µs of CPU a job (median of ${rounds}; ${cpu[i]!.map((x) => x.toFixed(0)).join(' ')})\n`));
if (trees.length === 2) process.stdout.write(`this tree ÷ the other, per state: ${((median(cpu[0]!) * trees[0]!.jobs.length) / (median(cpu[1]!) * trees[1]!.jobs.length)).toFixed(2)}x\n`);
// BREAKDOWN=1: this tree's jobs taken apart by stage inside the guest (bench/guest-breakdown.ts).
if (process.env.BREAKDOWN) {
  const { guestBreakdown } = await import('./guest-breakdown.js');
  const modules = {
    guestContext: await import('../src/workflow/sandbox/guest-context.js'),
    guest: await import('../src/workflow/sandbox/guest.js'),
    guestModules: await import('../src/workflow/sandbox/guest-modules.js'),
    runJob: await import('../src/workflow/sandbox/run-job.js'),
  };
  const b = await guestBreakdown(trees[0]!.jobs.slice(0, 60), modules, 5);
  const f = (x: number) => `${x.toFixed(1)} µs`;
  process.stdout.write(
    `a job of this tree (${b.parts.toFixed(2)} parts), back to back: ${f(b.whole)}; the crossing ${f(b.crossing)}, parse ${f(b.parse)}, build this ${f(b.build)} (+ this.last_response ${f(b.lastResponse)}), run the code ${f(b.execute)}, write the result ${f(b.finish)}, sweep ${f(b.sweep)}, the rest of a part ${f(b.rest)}\n`,
  );
}
