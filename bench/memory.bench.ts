// Memory: prompt tokens per call as a scripted session grows (memory on vs full history),
// decision recall at the end, and turn latency with background compression on vs off.
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadTeamOrThrow, type LoadedTeam } from '../src/config/load-team.js';
import type { AgentState } from '../src/engine/definition.js';
import { initialState } from '../src/engine/step.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import { DemoModel } from '../src/llm/demo-model.js';
import { Memory } from '../src/memory/memory.js';
import { MemoryPromptBuilder } from '../src/memory/memory-prompt-builder.js';
import type { PromptInput } from '../src/memory/prompt-builder.js';
import { ModelSummariser } from '../src/memory/summariser.js';
import { loadTokenizer, promptTokens } from '../src/memory/tokens.js';
import { LongSessionModel, memoryRunner, runToEnd } from '../tests/memory/long-session.js';
import { open } from './engine.bench.js';
import { median, QUICK } from './stats.js';
import { generatedTeam } from './team-fixtures.js';

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

/** A summary model that answers as soon as the event loop turns, as the engine bench's instant model does. */
class InstantSummaries implements ChatModel {
  readonly label = 'instant summaries';
  private calls = 0;
  async generate(): Promise<ChatResponse> {
    await new Promise((r) => setImmediate(r));
    this.calls += 1;
    return { text: `{"decisions":["d${this.calls}"],"discussions":["talk"],"pending":[]}`, toolCalls: [], usage: { promptTokens: 400, completionTokens: 30 }, finishReason: 'stop', model: 'instant' };
  }
}

/**
 * CPU per transition (from turn 20 to 200) of what a session asks of its memory, without the engine: the prompt
 * build, the message, directive and approval records, and the compression with its summary calls (ModelSummariser on
 * an instant model), on the engine bench's turns (a new key decision and an approval every turn). `on: false` runs
 * the same loop without memory (its own cost, subtracted).
 */
async function layerRun(loaded: LoadedTeam, on: boolean): Promise<number> {
  const def = open(loaded);
  const config = loaded.team.memory;
  const memory = new Memory({ config, summariser: new ModelSummariser({ model: new InstantSummaries(), modelId: 'instant', nameOf: (id) => id }) });
  const builder = new MemoryPromptBuilder(memory, { budget: config.prompt_budget });
  const session = { ...initialState(def, { id: 'bench' }), brief: 'bench brief' };
  const byId = new Map<string, AgentState>(def.agents.map((a) => [a.id, a]));
  const ids = def.agents.map((a) => a.id);
  if (on) memory.recordUser('bench brief');
  let from = ids[0]!;
  let said = 'bench brief';
  let seed = 7;
  let c0 = process.cpuUsage();
  for (let n = 1; n <= 200; n++) {
    if (n === 20) c0 = process.cpuUsage();
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const id = ids[seed % ids.length] === from ? ids[(seed + 1) % ids.length]! : ids[seed % ids.length]!;
    const persona = byId.get(id)!;
    const text = `${id} says something about topic${seed % 50}.`;
    if (on) {
      const inbox = { kind: 'handoff' as const, from, text: said, approved: true };
      const input: PromptInput = { def, session, persona, personaPrompt: loaded.prompts[id] ?? '', call: { turnId: `t${n}`, persona: id, path: persona.path, attempt: 1, inbox } };
      builder.build(input);
      memory.recordAgent({ turnId: `t${n}`, persona: id, text, turn: n });
      memory.recordDirective({ turnId: `t${n}`, persona: id, directive: { transition: 'APPROVE_AND_HANDOFF', next_agent: from, key_decisions: [`decision ${n} on topic${seed % 50}`] } });
      memory.recordApproval({ by: id, of: from, status: 'APPROVED' });
    }
    // The persona call's latency: compression runs meanwhile, as in a session.
    await new Promise((r) => setImmediate(r));
    from = id;
    said = text;
  }
  const used = process.cpuUsage(c0);
  await memory.idle();
  return (used.user + used.system) / 1000 / 180;
}

export default async function memoryBench(): Promise<void> {
  await loadTokenizer();
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const runs = QUICK ? 9 : 41;
  process.stdout.write(
    `memory layer alone per transition (turns 20-200: prompt build, records, compression with instant summary calls; CPU, median of ${runs} interleaved runs after 10 warm-up rounds):\n`,
  );
  for (const [name, loaded] of [
    ['8 personas', loadTeamOrThrow(root)],
    ['200 personas', generatedTeam(200)],
  ] as const) {
    const on: number[] = [];
    const off: number[] = [];
    for (let r = 0; r < runs + 10; r++) {
      const a = await layerRun(loaded, true);
      const b = await layerRun(loaded, false);
      if (r >= 10) {
        on.push(a);
        off.push(b);
      }
    }
    process.stdout.write(`  ${name}: ${((median(on) - median(off)) * 1000).toFixed(1)} µs CPU (the loop without memory ${(median(off) * 1000).toFixed(1)} µs, subtracted)\n`);
  }

  const on = await tokenRun(true);
  const off = await tokenRun(false);
  process.stdout.write('\n');
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
