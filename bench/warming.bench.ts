// State warming against a server that caches prompt prefixes: a simulated 200-turn studio session (memory
// on) in one run four ways — warming off with new pins in the system prompt (the layout before), cache-stable
// prompts only, prefix warming of the best prediction (the default settings), and of the top three (any
// confidence, three times the budget) — each on a fresh caching server, so every run meets the same cold cache. The server (tests/helpers/caching-openai-server.ts) models OpenAI / vLLM prefix caching:
// 128-token blocks keyed by exact bytes, 1,024-token minimum, a TTL; time to first token = base + cost per
// uncached prompt token; answers stream at a fixed cost per output token. The session is the same in every
// run (bench/studio-sim.ts answers from the message it is given and its own seeded habits).
import type { WarmingSettings } from '../src/config/team-schema.js';
import { OpenAIChatModel } from '../src/llm/openai-model.js';
import { ToolFallbackModel } from '../src/llm/tool-fallback.js';
import { openSession } from '../src/session/open-session.js';
import { loadPriceTable } from '../src/usage/price-table.js';
import { UsageMeter } from '../src/usage/usage-meter.js';
import { CachingOpenAIServer, type ChatBody, type LatencyModel } from '../tests/helpers/caching-openai-server.js';
import { OPENAI_LIKE } from '../tests/helpers/prefix-cache.js';
import { REPO_ROOT } from '../tests/helpers/team.js';
import { openTeam } from '../src/team/open-team.js';
import { QUICK } from './stats.js';
import { turnWatch } from './turn-watch.js';
import { rosterOf, studioAnswer, summaryAnswer } from './studio-sim.js';
import { workflowWarmingBench } from './warming-workflow.js';

const TURNS = QUICK ? 60 : 200;
const SEED = 7;
/** A local vLLM-class server: ~20 ms to the first token on a cached prompt, 10,000 prompt tokens/s, 1,250 output tokens/s. */
const LATENCY: LatencyModel = { baseMs: 20, perUncachedTokenMs: 0.1, perOutputTokenMs: 0.8 };
const CACHE = { ...OPENAI_LIKE, ttlMs: 60_000 };
/** Priced as gpt-4.1-mini (cached prompt tokens at a quarter of the price). */
const MODEL = 'gpt-4.1-mini';
/** A hosted API's profile, applied to the same run's token counts: 300 ms base, 0.1 ms per uncached prompt token. */
const HOSTED = { baseMs: 300, perUncachedTokenMs: 0.1 };

/** The simulated studio as the server's script: persona calls by the roster in their system prompt, summaries as JSON. */
function studioScript(seed: number): (body: ChatBody) => { text: string; toolCall?: { name: string; arguments: string } } {
  let calls = 0;
  return (body) => {
    const messages = body.messages ?? [];
    const text = (i: number) => String(messages.at(i)?.content ?? '');
    if (!body.tools?.length) return { text: summaryAnswer(messages.map((m) => String(m.content ?? '')).join('\n')) };
    // A warming request is cut at one token and changes nothing.
    if (body.max_completion_tokens !== undefined) return { text: 'ok' };
    const { self, allowed } = rosterOf(text(0));
    calls += 1;
    const inbox = text(-1);
    const answer = studioAnswer(seed, calls, self ?? 'creative_partner', allowed, inbox, /handed|approved/.test(inbox) ? 'someone' : null);
    return { text: answer.text, toolCall: { name: 'handoff_directive', arguments: JSON.stringify(answer.directive) } };
  };
}

interface RunFigures {
  turns: number;
  ttft: number[];
  turnMs: number[];
  modelledTtft: number;
  hostedTtft: number;
  ownCost: number;
  warmingCost: number;
  warmingRequests: number;
  hitRate: number;
  uncachedPerCall: number;
  top1: number;
  top3: number;
  predicted: number;
}

async function runOnce(label: string, memory: { new_pins: 'after_turns' | 'in_system' }, warming: Partial<WarmingSettings>): Promise<RunFigures> {
  const server = await new CachingOpenAIServer({ cache: CACHE, latency: LATENCY, answer: studioScript(SEED) }).start();
  const team = openTeam(REPO_ROOT, { maxTurns: 1000 }, { TROUPE_MODEL: MODEL });
  team.loaded.team.memory = { ...team.loaded.team.memory, ...memory };
  team.loaded.team.warming = { ...team.loaded.team.warming, ...warming };
  const env = { TROUPE_MODEL: MODEL };
  const meter = new UsageMeter(loadPriceTable({}));
  const model = new ToolFallbackModel(new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'bench' }));
  const session = await openSession({ team, model, meter, memory: true, env, id: `warming-${label}` });
  const watch = turnWatch();
  const { ttft, turnMs, hits } = watch;
  session.subscribe(watch.on);
  session.start('A lighthouse keeper game: one island, one lamp, the storm season.');
  while (hits.calls < TURNS) {
    await session.settled();
    const s = session.getSnapshot();
    if (s.status === 'awaiting_user') session.send({ type: 'user_message', text: 'Carry on with the plan.' });
    else if (s.status !== 'running') break;
  }
  const w = session.warming();
  await session.stop();
  await server.stop();
  const own = server.served.filter((r) => r.body.tools?.length && r.body.max_completion_tokens === undefined);
  const prompt = own.reduce((n, r) => n + r.promptTokens, 0);
  const cached = own.reduce((n, r) => n + r.cachedTokens, 0);
  return {
    turns: own.length,
    ttft,
    turnMs,
    modelledTtft: own.reduce((n, r) => n + r.ttftMs, 0) / own.length,
    hostedTtft: own.reduce((n, r) => n + HOSTED.baseMs + HOSTED.perUncachedTokenMs * (r.promptTokens - r.cachedTokens), 0) / own.length,
    ownCost: meter.totalCost ?? 0,
    warmingCost: w?.totals.cost ?? 0,
    warmingRequests: w?.totals.requests ?? 0,
    hitRate: prompt ? cached / prompt : 0,
    uncachedPerCall: (prompt - cached) / own.length,
    top1: hits.predicted ? hits.top1 / hits.predicted : 0,
    top3: hits.predicted ? hits.top3 / hits.predicted : 0,
    predicted: hits.predicted,
  };
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/** Prints the three runs side by side, each against the first. */
export default async function warmingBench(): Promise<void> {
  const runs: [string, RunFigures][] = [
    ['warming off, pins in system', await runOnce('off', { new_pins: 'in_system' }, { mode: 'off' })],
    ['cache-stable prompts only', await runOnce('stable', { new_pins: 'after_turns' }, { mode: 'predict' })],
    ['prefix warming (top 1)', await runOnce('prefix', { new_pins: 'after_turns' }, { mode: 'prefix', per_turn: 1 })],
    ['prefix warming (top 3, any)', await runOnce('prefix3', { new_pins: 'after_turns' }, { mode: 'prefix', per_turn: 3, min_confidence: 0, max_share: 3 })],
  ];
  const base = runs[0]![1];
  const pct = (v: number, b: number) => `${v <= b ? '-' : '+'}${Math.abs((100 * (v - b)) / b).toFixed(0)}%`;
  process.stdout.write(
    `${TURNS}-turn simulated studio session (memory on), each run on a fresh caching server: TTFT = ${LATENCY.baseMs} ms + ${LATENCY.perUncachedTokenMs} ms x uncached prompt tokens, ${LATENCY.perOutputTokenMs} ms per output token; prefix cache of ${CACHE.blockTokens}-token blocks, >= ${CACHE.minTokens} tokens, TTL ${CACHE.ttlMs / 1000} s; priced as ${MODEL}\n`,
  );
  process.stdout.write(
    `  ${'run'.padEnd(30)} ${'TTFT (measured)'.padStart(16)} ${'TTFT (server)'.padStart(14)} ${'turn time'.padStart(12)} ${'hit rate'.padStart(9)} ${'uncached/call'.padStart(14)} ${'cost/turn'.padStart(11)} ${'+warming'.padStart(10)} ${'top-1 / top-3'.padStart(14)}  hosted-profile TTFT\n`,
  );
  for (const [name, r] of runs) {
    const t = mean(r.ttft);
    const line = [
      name.padEnd(30),
      `${t.toFixed(1)} ms ${name === runs[0]![0] ? '    ' : pct(t, mean(base.ttft)).padStart(4)}`.padStart(16),
      `${r.modelledTtft.toFixed(1)} ms`.padStart(14),
      `${mean(r.turnMs).toFixed(0)} ms ${name === runs[0]![0] ? '    ' : pct(mean(r.turnMs), mean(base.turnMs)).padStart(4)}`.padStart(12),
      `${(100 * r.hitRate).toFixed(1)}%`.padStart(9),
      `${r.uncachedPerCall.toFixed(0)}`.padStart(14),
      `$${((r.ownCost + r.warmingCost) / r.turns).toFixed(5)}`.padStart(11),
      `${r.warmingRequests ? `$${(r.warmingCost / r.turns).toFixed(5)}` : '—'}`.padStart(10),
      `${r.predicted ? `${(100 * r.top1).toFixed(0)}% / ${(100 * r.top3).toFixed(0)}%` : '—'}`.padStart(14),
      `  ${r.hostedTtft.toFixed(0)} ms ${name === runs[0]![0] ? '' : pct(r.hostedTtft, base.hostedTtft)}`,
    ];
    process.stdout.write(`  ${line.join(' ')}\n`);
  }
  const best = Math.min(...runs.slice(1).map(([, r]) => mean(r.ttft)));
  process.stdout.write(`  average time to first token, best warming run vs warming off: ${pct(best, mean(base.ttft))}   (seed 004 claims -40% response time)\n`);
  await workflowWarmingBench();
}
