// Time to first delta: what troupe adds over the raw openai SDK, against the local fake server. All three
// send the same request (the runner's first persona call, captured once), so only troupe's work differs.
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { FakeOpenAIServer, streamChunks } from '../tests/helpers/fake-openai-server.js';
import { fixedClock, studio } from '../tests/helpers/team.js';
import type { ChatModel, ChatRequest } from '../src/llm/chat-model.js';
import { OpenAIChatModel } from '../src/llm/openai-model.js';
import { ToolFallbackModel } from '../src/llm/tool-fallback.js';
import { openSession } from '../src/session/open-session.js';
import { UsageMeter } from '../src/usage/usage-meter.js';
import { loadPriceTable } from '../src/usage/price-table.js';
import { interleaved, median, ms, QUICK } from './stats.js';

const N = QUICK ? 60 : 200;
const WARMUP = 20;

export default async function ttfd(): Promise<void> {
  const reply = streamChunks('The concept holds: a keeper of light on a failing island, every choice spends it.', { transition: 'RESPOND_TO_USER' }, { pieces: 12 });
  const server = await new FakeOpenAIServer(() => ({ stream: reply })).start();
  const raw = new OpenAI({ baseURL: server.baseURL, apiKey: 'bench', maxRetries: 0 });
  const adapter = new ToolFallbackModel(new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'bench' }));
  const team = studio();
  const prices = loadPriceTable({});

  const runnerOnce = async (model: ChatModel = adapter): Promise<number> => {
    const meter = new UsageMeter(prices);
    const runner = await openSession({ team, model, id: 'bench', clock: fixedClock(), meter, env: {} });
    let first = -1;
    const t0 = performance.now();
    runner.subscribe((e) => {
      if (e.type === 'agent_delta' && first < 0) first = performance.now() - t0;
    });
    runner.start('a lighthouse game');
    await runner.settled();
    await runner.stop();
    return first;
  };

  // The runner's request, as troupe hands it to the adapter and as it goes over the wire.
  let captured: ChatRequest | null = null;
  await runnerOnce({ label: adapter.label, generate: (request) => ((captured ??= request), adapter.generate(request)) });
  const request = captured! as ChatRequest;
  const body = server.requests.at(-1)!.body as ChatCompletionCreateParamsStreaming;

  const rawOnce = async (): Promise<number> => {
    const t0 = performance.now();
    let first = -1;
    const stream = await raw.chat.completions.create(body);
    for await (const chunk of stream) if (first < 0 && chunk.choices[0]?.delta?.content) first = performance.now() - t0;
    return first;
  };
  const adapterOnce = async (): Promise<number> => {
    const t0 = performance.now();
    let first = -1;
    const { signal: _signal, onDelta: _onDelta, onRetry: _onRetry, ...rest } = request;
    await adapter.generate({
      ...rest,
      onDelta: () => {
        if (first < 0) first = performance.now() - t0;
      },
    });
    return first;
  };

  // Interleaved so drift in the machine's load hits all three alike.
  const samples = await interleaved(N, WARMUP, {
    raw: async () => {
      server.requests.length = 0;
      return rawOnce();
    },
    adapter: adapterOnce,
    runner: () => runnerOnce(),
  });
  await server.stop();

  const base = median(samples.raw);
  const row = (name: string, values: number[], target = '') => {
    const m = median(values);
    process.stdout.write(`  ${name.padEnd(44)} median ${ms(m).padStart(10)}   ratio ${(m / base).toFixed(2)}x   overhead ${ms(Math.max(0, m - base))}${target}\n`);
  };
  const size = JSON.stringify(body).length;
  process.stdout.write(
    `time to first text delta, ${N} calls each (after ${WARMUP} warm-up, interleaved), local fake server, 12-piece stream, the same ${(size / 1024).toFixed(1)} KiB request (the runner's first persona call)\n`,
  );
  row('raw openai SDK (stream, first content chunk)', samples.raw);
  row('troupe adapter (retries, timer, assembler)', samples.adapter);
  row('troupe runner (engine step, prompt, meter)', samples.runner, '   (target <= 1.05x)');
}
