// Time to first delta: what troupe adds over the raw openai SDK, against the local fake server.
import OpenAI from 'openai';
import { FakeOpenAIServer, streamChunks } from '../tests/helpers/fake-openai-server.js';
import { fixedClock, studio } from '../tests/helpers/team.js';
import { OpenAIChatModel } from '../src/llm/openai-model.js';
import { ToolFallbackModel } from '../src/llm/tool-fallback.js';
import { directiveTool } from '../src/directive/tool.js';
import { openSession } from '../src/session/open-session.js';
import { UsageMeter } from '../src/usage/usage-meter.js';
import { loadPriceTable } from '../src/usage/price-table.js';
import { median, ms } from './stats.js';

const N = 200;
const WARMUP = 20;

export default async function ttfd(): Promise<void> {
  const reply = streamChunks('The concept holds: a keeper of light on a failing island, every choice spends it.', { transition: 'RESPOND_TO_USER' }, { pieces: 12 });
  const server = await new FakeOpenAIServer(() => ({ stream: reply })).start();
  const messages = [{ role: 'system' as const, content: 'You are the Creative Partner.' }, { role: 'user' as const, content: 'The brief: a lighthouse game' }];
  const tool = directiveTool();
  const raw = new OpenAI({ baseURL: server.baseURL, apiKey: 'bench', maxRetries: 0 });
  const adapter = new ToolFallbackModel(new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'bench' }));
  const team = studio();

  const rawOnce = async (): Promise<number> => {
    const t0 = performance.now();
    let first = -1;
    const stream = await raw.chat.completions.create({
      model: 'test-model', messages, stream: true, stream_options: { include_usage: true },
      tools: [{ type: 'function', function: tool }], tool_choice: 'auto',
    });
    for await (const chunk of stream) if (first < 0 && chunk.choices[0]?.delta?.content) first = performance.now() - t0;
    return first;
  };
  const adapterOnce = async (): Promise<number> => {
    const t0 = performance.now();
    let first = -1;
    await adapter.generate({ model: 'test-model', messages, tools: [tool], meta: { purpose: 'persona', persona: 'creative_partner' }, onDelta: () => { if (first < 0) first = performance.now() - t0; } });
    return first;
  };
  const runnerOnce = async (): Promise<number> => {
    const meter = new UsageMeter(loadPriceTable({}));
    const runner = await openSession({ team, model: adapter, id: 'bench', clock: fixedClock(), meter, env: {} });
    let first = -1;
    const t0 = performance.now();
    runner.subscribe((e) => { if (e.type === 'agent_delta' && first < 0) first = performance.now() - t0; });
    runner.start('a lighthouse game');
    await runner.settled();
    return first;
  };

  const samples = { raw: [] as number[], adapter: [] as number[], runner: [] as number[] };
  for (let i = 0; i < WARMUP + N; i++) {
    // Interleaved so drift in the machine's load hits all three alike.
    const r = await rawOnce();
    const a = await adapterOnce();
    const s = await runnerOnce();
    if (i < WARMUP) continue;
    samples.raw.push(r);
    samples.adapter.push(a);
    samples.runner.push(s);
  }
  await server.stop();

  const base = median(samples.raw);
  const row = (name: string, values: number[]) => {
    const m = median(values);
    process.stdout.write(`${name.padEnd(44)} median ${ms(m).padStart(10)}   ratio ${(m / base).toFixed(2)}x   overhead ${ms(Math.max(0, m - base))}\n`);
  };
  process.stdout.write(`time to first text delta, ${N} calls each (after ${WARMUP} warm-up), local fake server, 12-piece stream\n`);
  row('raw openai SDK (stream, first content chunk)', samples.raw);
  row('troupe adapter (retries, timer, assembler)', samples.adapter);
  row('troupe runner (engine step, prompt, meter)', samples.runner);
}
