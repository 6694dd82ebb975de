// The host tier alone on SynthDev's grocery_store_test: a session of it runs once as sessions run it (code from
// dist/, instant scripted answers) with every evaluation it asks for recorded; the evaluations are then given to
// runInTier again and again, back to back, and the CPU per evaluation printed. With a second tree (TREE=<a
// checkout of troupe, built>), the same is done with that tree's dist/ in the same process, rounds interleaved:
// each tree records its own evaluations. SYNTHDEV_WORKFLOW: another copy of the workflow (bench/synthdev.bench.ts
// makes them; /tmp copies of its reading variant too). Not part of `npm run bench`: a tool for one change.
// Back to back the tier's caches stay warm: inside a session (between the engine's work) it costs several times more.
// Run: npm run build && SYNTHDEV_DIR=<SynthDev checkout> [TREE=<other checkout>] node --import tsx bench/synthdev-tier.ts [rounds]
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Evaluation, EvaluationResult } from '../src/engine/evaluation.js';

// The scripted answers bench/synthdev-troupe.mjs gives (plain JavaScript, shared with SynthDev's side).
const { scriptedModel } = (await import(new URL('./synthdev-script.mjs', import.meta.url).href)) as {
  scriptedModel: (rounds: number, byCalls: boolean) => { label: string; generate: (req: { messages: { role: string; content: string }[] }) => Promise<unknown> };
};

const dir = process.env.SYNTHDEV_DIR ?? '';
const rounds = Number(process.argv[2] ?? 15);
const workflowFile = process.env.SYNTHDEV_WORKFLOW ?? join(dir, 'src/config/workflows/grocery_store_test.json');
const byCalls = process.env.SYNTHDEV_WORKFLOW !== undefined;
const CUSTOMER_ROUNDS = 100;

type RunInTier = (evaluation: Evaluation, script: string | null, limits: unknown) => EvaluationResult | null;
type Tree = { name: string; evaluations: Evaluation[]; answered: number; run: () => number };

/** Records one session's evaluations with a tree's dist/, and a function that gives them all to its runInTier (µs of CPU per evaluation). */
async function tree(root: string, name: string): Promise<Tree> {
  const dist = (path: string) => import(pathToFileURL(join(root, 'dist', path)).href);
  const { openSession, loadWorkflowPlan, MemoryStore } = await dist('index.js');
  const { createSandboxEvaluator, sharedSandboxPool, DEFAULT_LIMITS } = await dist('workflow/sandbox/index.js');
  const { runInTier } = (await dist('workflow/sandbox/tier/run.js')) as { runInTier: RunInTier };
  const plan = loadWorkflowPlan(workflowFile, { roles: join(dir, 'src/config/roles'), env: {} });
  const model = scriptedModel(CUSTOMER_ROUNDS, byCalls);
  const inner = createSandboxEvaluator({ pool: sharedSandboxPool(), scriptFor: (n: string) => (n === plan.name ? plan.script : null), hostTier: true });
  const evaluations: Evaluation[] = [];
  // Kept as the engine gives them: the plan's code objects, the scope's fields (the engine replaces them, never
  // changes one in place), its message lists sharing their messages as the engine's do.
  const evaluator = {
    evaluate(e: Evaluation, signal?: AbortSignal) {
      evaluations.push({ ...e, scope: { ...e.scope } });
      return inner.evaluate(e, signal);
    },
    close: () => inner.close(),
  };
  const session = await openSession({ workflow: plan, model, evaluator, store: new MemoryStore(), memory: false, env: {}, id: 'tier', maxTurns: CUSTOMER_ROUNDS * 4 + 10 });
  session.start('I need pasta, tomatoes and bread for six.');
  await session.settled();
  await session.stop();
  await evaluator.close();
  const answered = evaluations.filter((e) => runInTier(e, plan.script, DEFAULT_LIMITS) !== null).length;
  return {
    name,
    evaluations,
    answered,
    run() {
      const c0 = process.cpuUsage();
      for (let r = 0; r < 5; r++) for (const e of evaluations) runInTier(e, plan.script, DEFAULT_LIMITS);
      const c = process.cpuUsage(c0);
      return (c.user + c.system) / (5 * evaluations.length);
    },
  };
}

const trees = [await tree(resolve(new URL('..', import.meta.url).pathname), 'this tree')];
if (process.env.TREE) trees.push(await tree(resolve(process.env.TREE), process.env.TREE));
for (const t of trees) process.stdout.write(`${t.name}: ${t.evaluations.length} evaluations, ${t.answered} answered by the tier\n`);
const cpu = trees.map((): number[] => []);
// The first rounds warm V8 up.
for (let r = 0; r < rounds + 3; r++) trees.forEach((t, i) => (r < 3 ? t.run() : cpu[i]!.push(t.run())));
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
trees.forEach((t, i) => process.stdout.write(`${t.name}: ${median(cpu[i]!).toFixed(2)} µs of CPU an evaluation, back to back (median of ${rounds})\n`));
if (trees.length === 2) process.stdout.write(`this tree ÷ the other: ${(median(cpu[0]!) / median(cpu[1]!)).toFixed(2)}x\n`);
process.exit(0);
