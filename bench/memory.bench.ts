// Memory: prompt tokens per call as a scripted session grows (memory on vs full history),
// decision recall at the end, and turn latency with background compression on vs off.
import { performance } from 'node:perf_hooks';
import type { ChatRequest } from '../src/llm/chat-model.js';
import { DemoModel } from '../src/llm/demo-model.js';
import { promptTokens } from '../src/memory/tokens.js';
import { LongSessionModel, memoryRunner, runToEnd } from '../tests/memory/long-session.js';
import { median } from './stats.js';

const TURNS = 200;
const AT = [20, 50, 100, 200];
// A key decision every 15 turns, the first at turn 3.
const DECISIONS: Record<number, string[]> = Object.fromEntries(
  Array.from({ length: 14 }, (_, i) => [3 + i * 15, [`Decision ${i + 1}: chapter ${i + 1} keeps its lighthouse lamp lit by the keeper's choice`]]),
);

async function tokenRun(memoryOn: boolean) {
  // `yields` stands in for model latency, deterministically: a persona call outlasts a summary call.
  const model = new LongSessionModel({ lastTurn: TURNS, decisions: DECISIONS, yields: 60 });
  const { runner, events, attached } = await memoryRunner(model, memoryOn ? {} : { prompt: null });
  await runToEnd(runner, attached);
  const tokens = AT.map((n) => promptTokens(model.prompts.get(n)!));
  const final = model.prompts
    .get(TURNS)!
    .map((m) => m.content)
    .join('\n');
  const all = Object.values(DECISIONS).flat();
  const recall = all.filter((d) => final.includes(d)).length / all.length;
  const count = (type: string) => events.filter((e) => e.type === type).length;
  return { tokens, recall, compressed: count('memory_compressed'), trimmed: count('memory_trimmed'), summaries: attached?.memory.summaries.length ?? 0, pinned: attached?.memory.pinned.length ?? 0 };
}

async function latencyRun(mode: 'compression on' | 'compression off' | 'memory off', turns: number) {
  const demo = new DemoModel();
  const summary = async (request: ChatRequest) => {
    await new Promise((r) => setTimeout(r, 200));
    return demo.generate(request);
  };
  const model = new LongSessionModel({ lastTurn: turns, delayMs: 200, summary });
  const options = mode === 'memory off' ? { prompt: null } : mode === 'compression off' ? { memory: { compress_every: 10_000 } } : {};
  const { runner, events, attached } = await memoryRunner(model, options);
  const started = new Map<string, number>();
  const took: number[] = [];
  runner.subscribe((e) => {
    if (e.type === 'agent_started') started.set(e.turn_id, performance.now());
    if (e.type === 'agent_message') took.push(performance.now() - started.get(e.turn_id)!);
  });
  const t0 = performance.now();
  runner.start('A cozy lighthouse game');
  await runner.settled();
  const wall = performance.now() - t0;
  await attached?.memory.idle();
  const mean = took.reduce((a, b) => a + b, 0) / took.length;
  return { mean, median: median(took), wall, compressed: events.filter((e) => e.type === 'memory_compressed').length };
}

export default async function memoryBench(): Promise<void> {
  const on = await tokenRun(true);
  const off = await tokenRun(false);
  const pad = (s: string | number, n = 8) => String(s).padStart(n);
  process.stdout.write(`scripted ${TURNS}-turn session, studio team, demo summariser (fast tier), team.json memory defaults\n`);
  process.stdout.write(`prompt tokens per call (o200k):\n${pad('turn', 6)}${pad('memory on', 11)}${pad('full history', 14)}${pad('on/off', 8)}\n`);
  AT.forEach((n, i) => process.stdout.write(`${pad(n, 6)}${pad(on.tokens[i]!, 11)}${pad(off.tokens[i]!, 14)}${pad((on.tokens[i]! / off.tokens[i]!).toFixed(2), 8)}\n`));
  const ratio = (t: number[]) => (t[3]! / t[0]!).toFixed(2);
  process.stdout.write(`turn-${TURNS} / turn-20: memory on ${ratio(on.tokens)}x (target <= 1.5x), full history ${ratio(off.tokens)}x\n`);
  process.stdout.write(`decision recall in the turn-${TURNS} prompt: memory on ${(on.recall * 100).toFixed(0)}%, full history ${(off.recall * 100).toFixed(0)}% (target 100%)\n`);
  process.stdout.write(`memory on: ${on.compressed} memory_compressed, ${on.trimmed} memory_trimmed, ${on.summaries} summaries, ${on.pinned} pinned items at the end\n`);

  const turns = 30;
  process.stdout.write(`\nturn latency, scripted persona model at 200 ms and summariser at 200 ms, ${turns} turns:\n`);
  const results: Record<string, Awaited<ReturnType<typeof latencyRun>>> = {};
  for (const mode of ['compression on', 'compression off', 'memory off'] as const) {
    const r = (results[mode] = await latencyRun(mode, turns));
    process.stdout.write(`${mode.padEnd(16)} mean ${r.mean.toFixed(1)} ms, median ${r.median.toFixed(1)} ms, session ${(r.wall / 1000).toFixed(2)} s, ${r.compressed} compressions\n`);
  }
  const delta = (results['compression on']!.mean / results['compression off']!.mean - 1) * 100;
  process.stdout.write(`compression on vs off: ${delta >= 0 ? '+' : ''}${delta.toFixed(2)}% mean turn latency (target within 5%)\n`);
}
