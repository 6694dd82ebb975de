// `troupe serve` under load: many sessions at once on a model with a fixed latency, through real HTTP and SSE.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import { openTeam } from '../src/team/open-team.js';
import { PACKAGE_ROOT } from '../src/package-root.js';
import { serveApp } from '../src/serve/app.js';
import { SessionHost } from '../src/serve/host.js';
import { listen } from '../src/serve/listen.js';
import { LowdbStore } from '../src/store/lowdb-store.js';
import { runAlone } from './alone.js';
import { median } from './stats.js';

const QUICK = process.env.BENCH_QUICK === '1';
const SESSIONS = Number(process.env.SERVE_SESSIONS ?? (QUICK ? 100 : 1000));
const TURNS = Number(process.env.SERVE_TURNS ?? 6);
const LATENCY_MS = 200;

/** A model that answers after LATENCY_MS: hands to the next persona it may reach, then asks the user after TURNS turns; records when each answer left. */
class LatencyModel implements ChatModel {
  readonly label = 'bench model (200 ms)';
  readonly answered = new Map<string, number>();

  async generate(request: ChatRequest): Promise<ChatResponse> {
    await new Promise((r) => setTimeout(r, LATENCY_MS));
    const usage = { promptTokens: 100, completionTokens: 20 };
    if (request.meta.purpose === 'summary') return { text: JSON.stringify({ decisions: [], discussions: ['bench'], pending: [] }), toolCalls: [], usage, finishReason: 'stop', model: 'bench' };
    const turn = Number((request.meta.turnId ?? 't1').slice(1));
    const next = request.meta.handoffTo?.[turn % (request.meta.handoffTo.length || 1)];
    const directive = turn >= TURNS || !next ? { transition: 'RESPOND_TO_USER' } : { transition: 'HANDOFF_TO_AGENT', next_agent: next };
    this.answered.set(`${request.meta.brief}#${request.meta.turnId}`, performance.now());
    return { text: `turn ${turn} of ${request.meta.brief}`, toolCalls: [{ id: 'c1', name: 'handoff_directive', arguments: JSON.stringify(directive) }], usage, finishReason: 'tool_calls', model: 'bench' };
  }
}

/** Reads a session's SSE stream until it waits for the user; returns when each agent_message arrived, by turn id. */
async function watch(url: string, brief: string, arrivals: Map<string, number>, connected: Map<string, number>): Promise<number> {
  const response = await fetch(url);
  connected.set(brief, performance.now());
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let turns = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return turns;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const data = buffer.slice(0, end).split('\n').find((l) => l.startsWith('data: '));
      buffer = buffer.slice(end + 2);
      if (!data) continue;
      const e = JSON.parse(data.slice(6)) as { type: string; turn_id?: string };
      if (e.type === 'agent_message') {
        arrivals.set(`${brief}#${e.turn_id}`, performance.now());
        turns++;
      }
      if (e.type === 'awaiting_user' || e.type === 'session_ended') {
        await reader.cancel();
        return turns;
      }
    }
  }
}

/** Measures in a process of its own (see runAlone). */
export default async function alone(): Promise<void> {
  await runAlone(fileURLToPath(import.meta.url));
}

async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-serve-bench-'));
  const model = new LatencyModel();
  const host = new SessionHost({ store: new LowdbStore(dir), team: openTeam(PACKAGE_ROOT, {}, {}), teamDir: PACKAGE_ROOT, env: {}, maxSessions: SESSIONS + 10, model: () => model });
  const { server, port } = await listen(serveApp({ host, token: null, maxBodyBytes: 64 * 1024 }).fetch, { hostname: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${port}`;
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 100);
  const arrivals = new Map<string, number>();
  // Turns answered before a stream was connected arrive from the stored log, not live: they are not delays.
  const connected = new Map<string, number>();
  const started = performance.now();
  let failed = 0;
  const runs = Array.from({ length: SESSIONS }, async (_, i) => {
    const brief = `bench session ${i}`;
    try {
      const created = await fetch(`${base}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ brief }) });
      const { id } = (await created.json()) as { id: string };
      return await watch(`${base}/v1/sessions/${id}/events`, brief, arrivals, connected);
    } catch {
      failed++;
      return 0;
    }
  });
  const turns = (await Promise.all(runs)).reduce((a, b) => a + b, 0);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const delays = [...arrivals]
    .flatMap(([key, at]) => {
      const answered = model.answered.get(key);
      const since = connected.get(key.split('#')[0]!);
      return answered !== undefined && since !== undefined && answered >= since ? [at - answered] : [];
    })
    .sort((a, b) => a - b);
  const p99 = delays[Math.min(delays.length - 1, Math.floor(delays.length * 0.99))] ?? 0;
  process.stdout.write(`${SESSIONS} sessions at once, ${TURNS} persona turns each, model latency ${LATENCY_MS} ms, lowdb store, real HTTP + SSE\n`);
  process.stdout.write(`  turns per second          ${(turns / seconds).toFixed(0)} (${turns} turns in ${seconds.toFixed(1)} s; ideal ${(SESSIONS / (LATENCY_MS / 1000)).toFixed(0)}/s)\n`);
  process.stdout.write(`  RSS per session           ${((rssPeak - rssBefore) / SESSIONS / 1024).toFixed(0)} KiB (peak ${(rssPeak / 1048576).toFixed(0)} MiB, before ${(rssBefore / 1048576).toFixed(0)} MiB)\n`);
  if (failed) process.stdout.write(`  ${failed} session(s) failed (connection errors)\n`);
  process.stdout.write(`  model answer -> SSE event p50 ${median(delays).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (${delays.length} turns answered while their stream was open)\n`);
  await host.stopAll();
  server.close();
  rmSync(dir, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await bench();
