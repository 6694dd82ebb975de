// `GET /v1/sessions` on a busy server: SESSIONS sessions open at once in one server (its store folding journal
// tails, as `troupe serve` makes it), each stopped inside a turn a few steps past its last checkpoint, so every
// listed session is open with journal lines after its checkpoint. Each listing is timed as the server's
// event loop holds it (the sessions wait on their model meanwhile: nothing else runs) and by its main thread's
// CPU (what it holds the loop for on a loaded machine) and the process's, cold (no listing cache) then warm. Run: `npm run build && node --import tsx bench/serve-listing.ts` (SESSIONS=1000;
// BENCH_CODE_DIR=<another built checkout> measures that one's server).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import { PACKAGE_ROOT } from '../src/package-root.js';
import { median } from './stats.js';
import { mainThreadCpu } from './thread-cpu.js';

const SESSIONS = Number(process.env.SESSIONS ?? 1000);
// Turns each session answers before its model waits for good (a turn in flight, its lines after the checkpoint).
const TURNS = Number(process.env.LISTING_TURNS ?? 4);
const LISTINGS = 5;
const root = process.env.BENCH_CODE_DIR ?? join(import.meta.dirname, '..');

/** A model that hands on at once for TURNS turns, then never answers. */
class StallingModel implements ChatModel {
  readonly label = 'bench model (stalls)';
  async generate(request: ChatRequest): Promise<ChatResponse> {
    const turn = Number((request.meta.turnId ?? 't1').slice(1));
    if (request.meta.purpose === 'persona' && turn > TURNS) return new Promise<ChatResponse>(() => undefined);
    const usage = { promptTokens: 100, completionTokens: 20 };
    if (request.meta.purpose === 'summary') return { text: JSON.stringify({ decisions: [], discussions: ['bench'], pending: [] }), toolCalls: [], usage, finishReason: 'stop', model: 'bench' };
    const next = request.meta.handoffTo?.[turn % (request.meta.handoffTo.length || 1)];
    const directive = next ? { transition: 'HANDOFF_TO_AGENT', next_agent: next } : { transition: 'RESPOND_TO_USER' };
    return { text: `turn ${turn}`, toolCalls: [{ id: 'c1', name: 'handoff_directive', arguments: JSON.stringify(directive) }], usage, finishReason: 'tool_calls', model: 'bench' };
  }
}

const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(root, 'dist', `${path}.js`)).href)) as T;

async function main(): Promise<void> {
  const { serveApp } = await load<typeof import('../src/serve/app.js')>('serve/app');
  const { SessionHost } = await load<typeof import('../src/serve/host.js')>('serve/host');
  const { LowdbStore } = await load<typeof import('../src/store/lowdb-store.js')>('store/lowdb-store');
  const { openTeam } = await load<typeof import('../src/team/open-team.js')>('team/open-team');
  const { foldStoredTail } = await load<typeof import('../src/session/stored-tail.js')>('session/stored-tail');
  const { writesSettled } = await load<typeof import('../src/store/writes-in-flight.js')>('store/writes-in-flight');
  const dir = mkdtempSync(join(tmpdir(), 'troupe-serve-listing-'));
  const model = new StallingModel();
  const host = new SessionHost({
    store: new LowdbStore(dir, process.env.LISTING_NO_FOLD ? {} : { foldTail: async (doc, tail) => foldStoredTail(doc, tail) }),
    team: openTeam(PACKAGE_ROOT, {}, {}),
    teamDir: PACKAGE_ROOT,
    env: {},
    maxSessions: SESSIONS + 10,
    model: () => model,
  });
  const app = serveApp({ host, token: null, maxBodyBytes: 64 * 1024 });
  for (let i = 0; i < SESSIONS; i++) await host.create({ brief: `bench session ${i}` });
  // Every session is inside its stalled turn, its journal written and flushed.
  await new Promise((r) => setTimeout(r, 500));
  await writesSettled();
  const held: number[] = [];
  const cpu: number[] = [];
  const onMain: number[] = [];
  const mainCpu = mainThreadCpu();
  let listed = 0;
  for (let i = 0; i < LISTINGS; i++) {
    const started = performance.now();
    const cpu0 = process.cpuUsage();
    const main0 = mainCpu();
    const response = await app.fetch(new Request('http://127.0.0.1/v1/sessions'));
    const body = (await response.json()) as { sessions: unknown[] };
    const used = process.cpuUsage(cpu0);
    onMain.push(mainCpu() - main0);
    held.push(performance.now() - started);
    cpu.push((used.user + used.system) / 1000);
    listed = body.sessions.length;
  }
  process.stdout.write(
    `GET /v1/sessions with ${SESSIONS} open sessions (each ${TURNS} turns in, inside a turn; listed ${listed}) from ${root}/dist: cold ${held[0]!.toFixed(0)} ms (main thread's CPU ${onMain[0]!.toFixed(0)} ms, the process's ${cpu[0]!.toFixed(0)} ms), then median ${median(held.slice(1)).toFixed(1)} ms (main thread ${median(onMain.slice(1)).toFixed(1)} ms: ${((1000 * median(onMain.slice(1))) / SESSIONS).toFixed(0)} µs a session)\n`,
  );
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

await main();
