// Workflow warming against the caching server: seed 000's coder/reviewer loop (the reviewer asks for changes
// until the last round), run with `"warming": "off"` and `"warming": "prefix"`, interleaved (off, prefix, off,
// prefix), each run on a fresh caching server. The coder's answers are long (a whole file each round), so its
// next prompt holds its last answer and the review: without warming those are prefilled when its turn comes;
// with prefix warming, while the reviewer reads.
import { WarmingSettingsSchema } from '../src/config/team-schema.js';
import { OpenAIChatModel } from '../src/llm/openai-model.js';
import { openSession } from '../src/session/open-session.js';
import { openTeam } from '../src/team/open-team.js';
import { loadPriceTable } from '../src/usage/price-table.js';
import { UsageMeter } from '../src/usage/usage-meter.js';
import type { WorkflowPlan } from '../src/workflow/run/plan.js';
import { CachingOpenAIServer, type ChatBody, type LatencyModel } from '../tests/helpers/caching-openai-server.js';
import { OPENAI_LIKE } from '../tests/helpers/prefix-cache.js';
import { REPO_ROOT } from '../tests/helpers/team.js';
import { coderReviewerPlan } from '../tests/helpers/workflow-plan.js';
import { QUICK } from './stats.js';
import { turnWatch } from './turn-watch.js';

const ROUNDS = QUICK ? 8 : 30;
const LATENCY: LatencyModel = { baseMs: 20, perUncachedTokenMs: 0.1, perOutputTokenMs: 0.8 };
const CACHE = { ...OPENAI_LIKE, ttlMs: 60_000 };
const MODEL = 'gpt-4.1-mini';

/** A role's long system message (style guide, conventions): about `words` words. */
function guide(role: string, words: number): string {
  const lines = [`You are the ${role} of a small team writing a TypeScript parser library.`];
  for (let i = 0; lines.join(' ').split(' ').length < words; i++) lines.push(`Rule ${i + 1}: keep function ${i} of the ${role}'s checklist pure, typed and tested; name things for what they mean.`);
  return lines.join('\n');
}

function coderReviewer(mode: 'off' | 'prefix'): WorkflowPlan {
  return coderReviewerPlan({
    name: 'coder_reviewer_bench',
    source: 'bench',
    systemMessages: { coder: guide('coder', 1500), reviewer: guide('reviewer', 1500) },
    maxLength: 10_000_000,
    reviewTool: {
      name: 'review_work',
      description: 'Your verdict on the code',
      parameters: { type: 'object', properties: { improvement_needed: { type: 'boolean' }, continue_message: { type: 'string' } } },
    },
    forced: true,
    taskPrefix: 'Write:',
    reviewInput: 'Review the latest version.',
    summary: 'approved',
    maxTurns: 4 * ROUNDS,
    warming: WarmingSettingsSchema.parse({ mode }),
  });
}

/** The coder writes a new version of the file (about 600 tokens); the reviewer writes about 300 tokens of notes and asks for a change until the last round. */
function loopScript(): (body: ChatBody) => { text: string; toolCall?: { name: string; arguments: string } } {
  let reviews = 0;
  let versions = 0;
  return (body) => {
    if (body.max_completion_tokens !== undefined) return { text: 'ok' };
    const system = String(body.messages?.[0]?.content ?? '');
    if (system.includes('the reviewer')) {
      reviews += 1;
      const verdict = { improvement_needed: reviews < ROUNDS, continue_message: `Round ${reviews}: handle the edge case of input ${reviews} and keep the API stable.` };
      const notes = Array.from({ length: 12 }, (_, i) => `- parse${i}: the error path for input ${reviews} is not covered; add a test and say what it returns.`).join('\n');
      return { text: `Review ${reviews}:\n${notes}`, toolCall: { name: 'review_work', arguments: JSON.stringify(verdict) } };
    }
    versions += 1;
    const code = Array.from({ length: 40 }, (_, i) => `export function parse${i}_v${versions}(input: string): Node { return node(input, ${i}); }`).join('\n');
    return { text: `Version ${versions}:\n${code}` };
  };
}

interface Figures {
  calls: number;
  ttft: number;
  turn: number;
  modelled: number;
  hit: number;
  ownCost: number;
  warmingCost: number;
  warmings: number;
  /** Share of calls the live prediction named first (null: nothing predicted). */
  top1: number | null;
}

async function runOnce(mode: 'off' | 'prefix', n: number): Promise<Figures> {
  const server = await new CachingOpenAIServer({ cache: CACHE, latency: LATENCY, answer: loopScript() }).start();
  const team = openTeam(REPO_ROOT, { maxTurns: 1000 }, { TROUPE_MODEL: MODEL });
  const meter = new UsageMeter(loadPriceTable({}));
  const model = new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'bench' });
  const session = await openSession({ team, model, meter, workflow: coderReviewer(mode), memory: false, env: { TROUPE_MODEL: MODEL }, id: `wfwarm-${mode}-${n}` });
  const watch = turnWatch();
  session.subscribe(watch.on);
  session.start('a streaming JSON parser');
  await session.settled();
  const w = session.warming();
  await session.stop();
  await server.stop();
  const own = server.served.filter((r) => r.body.max_completion_tokens === undefined);
  const prompt = own.reduce((s, r) => s + r.promptTokens, 0);
  const cached = own.reduce((s, r) => s + r.cachedTokens, 0);
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
  return {
    calls: own.length,
    ttft: mean(watch.ttft),
    turn: mean(watch.turnMs),
    modelled: mean(own.map((r) => r.ttftMs)),
    hit: prompt ? cached / prompt : 0,
    ownCost: meter.totalCost ?? 0,
    warmingCost: w?.totals.cost ?? 0,
    warmings: w?.totals.requests ?? 0,
    top1: watch.hits.predicted ? watch.hits.top1 / watch.hits.predicted : null,
  };
}

/** Prints warming off against prefix warming on the coder/reviewer loop, two interleaved runs each. */
export async function workflowWarmingBench(): Promise<void> {
  const runs: [string, Figures][] = [];
  for (let n = 1; n <= 2; n++) for (const mode of ['off', 'prefix'] as const) runs.push([`${mode} #${n}`, await runOnce(mode, n)]);
  process.stdout.write(`\ncoder/reviewer workflow, ${ROUNDS} rounds (${2 * ROUNDS} agent calls), each run on a fresh caching server (same latency and cache as above); off and prefix interleaved\n`);
  process.stdout.write(
    `  ${'run'.padEnd(12)} ${'calls'.padStart(5)} ${'TTFT (measured)'.padStart(16)} ${'TTFT (server)'.padStart(14)} ${'turn time'.padStart(10)} ${'hit rate'.padStart(9)} ${'cost/turn'.padStart(10)} ${'+warming'.padStart(9)} ${'warmings'.padStart(9)} ${'top-1'.padStart(6)}\n`,
  );
  for (const [name, r] of runs) {
    process.stdout.write(
      `  ${name.padEnd(12)} ${String(r.calls).padStart(5)} ${`${r.ttft.toFixed(1)} ms`.padStart(16)} ${`${r.modelled.toFixed(1)} ms`.padStart(14)} ${`${r.turn.toFixed(0)} ms`.padStart(10)} ${`${(100 * r.hit).toFixed(1)}%`.padStart(9)} ${`$${((r.ownCost + r.warmingCost) / r.calls).toFixed(5)}`.padStart(10)} ${(r.warmings ? `$${(r.warmingCost / r.calls).toFixed(5)}` : '—').padStart(9)} ${String(r.warmings).padStart(9)} ${(r.top1 === null ? '—' : `${(100 * r.top1).toFixed(0)}%`).padStart(6)}\n`,
    );
  }
  const mean = (mode: string, key: 'ttft' | 'modelled') => runs.filter(([n]) => n.startsWith(mode)).reduce((s, [, r]) => s + r[key], 0) / 2;
  const pct = (v: number, b: number) => `${v <= b ? '-' : '+'}${Math.abs((100 * (v - b)) / b).toFixed(0)}%`;
  process.stdout.write(
    `  prefix vs off, mean of both runs: time to first token ${pct(mean('prefix', 'ttft'), mean('off', 'ttft'))} measured, ${pct(mean('prefix', 'modelled'), mean('off', 'modelled'))} on the server's model\n`,
  );
}
