// Per-turn cost of the Restate backend against its one-call floor (bench/restate-floor.ts: a virtual object doing
// one ctx.run and one ctx.set per call, on the same restate-server), on a model that answers at once: team
// sessions with full-history prompts (no rolling memory) run on a real restate-server from node_modules with one
// troupe worker in this process, and on the embedded store for reference. Also the worker's CPU per turn.
// Standalone: node --import tsx bench/restate.bench.ts   (TURNS=40 SESSIONS=5 CALLS=200 by default)
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIRECTIVE_TOOL_NAME } from '../src/directive/schema.js';
import type { TroupeEvent } from '../src/engine/event-map.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import { openTeam } from '../src/team/open-team.js';
import { registerDeployment } from '../src/serve/restate/admin.js';
import type { EventsPage } from '../src/serve/restate/records.js';
import { loadClients, loadWorkerModules } from '../src/serve/restate/sdk.js';
import { openSession } from '../src/session/open-session.js';
import { LowdbStore } from '../src/store/lowdb-store.js';
import { PriceTable } from '../src/usage/price-table.js';
import { RestateServer } from '../tests/helpers/restate-server.js';
import { FLOOR_OBJECT, startFloor } from './restate-floor.js';
import { median, ms, QUICK } from './stats.js';

const TURNS = Number(process.env.TURNS ?? (QUICK ? 20 : 40));
const SESSIONS = Number(process.env.SESSIONS ?? (QUICK ? 3 : 5));
const CALLS = Number(process.env.CALLS ?? (QUICK ? 60 : 200));
const ROOT = resolve(import.meta.dirname, '..');

/** Answers at once: ~600 characters, a handoff round the roster, RESPOND_TO_USER at the last turn (counted per brief). */
class InstantModel implements ChatModel {
  readonly label = 'bench model';
  private readonly turns = new Map<string, number>();

  async generate(request: ChatRequest): Promise<ChatResponse> {
    const brief = request.meta.brief ?? '';
    const n = (this.turns.get(brief) ?? 0) + 1;
    this.turns.set(brief, n);
    const allowed = request.meta.handoffTo ?? [];
    const directive =
      n >= TURNS ? { transition: 'RESPOND_TO_USER' } : { transition: 'HANDOFF_TO_AGENT', next_agent: allowed[(n * 7) % Math.max(1, allowed.length)], urgency: 0.6, dependency: 0.7, user_intent: 0.5 };
    const text = `Turn ${n} from ${request.meta.personaName}: ${'we weigh scope, cost and feel of the chapters; '.repeat(12)}`;
    return { text, toolCalls: [{ name: DIRECTIVE_TOOL_NAME, arguments: JSON.stringify(directive) }], usage: { promptTokens: 900, completionTokens: 150 }, finishReason: 'tool_calls', model: 'bench' };
  }
}

/** Milliseconds per turn from the session's own event stamps: session_started to the pause after the last turn. */
function perTurn(events: readonly TroupeEvent[]): number {
  const at = (type: string) => new Date(events.find((e) => e.type === type)!.at).getTime();
  const turns = events.filter((e) => e.type === 'agent_message').length;
  if (turns !== TURNS) throw new Error(`expected ${TURNS} turns, the session had ${turns}`);
  return (at('awaiting_user') - at('session_started')) / turns;
}

function team() {
  const t = openTeam(ROOT, { maxTurns: TURNS + 10 }, { TROUPE_MODEL: 'bench' });
  t.def.limits = { ...t.def.limits, ping_pong: 1_000_000, max_reworks_per_pair: 1_000_000 };
  // Full-history prompts on both backends: the figures measure the backend, not summary calls.
  t.loaded.team.memory = { ...t.loaded.team.memory, enabled: false };
  return t;
}

async function embedded(): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-bench-restate-'));
  const model = new InstantModel();
  const figures: number[] = [];
  try {
    for (let i = 0; i <= SESSIONS; i++) {
      const session = await openSession({ team: team(), teamDir: ROOT, model, store: new LowdbStore(dir), memory: false, env: {} });
      const events: TroupeEvent[] = [];
      session.subscribe((e) => events.push(e));
      session.start(`Embedded session ${i}`);
      await session.settled();
      await session.stop();
      if (i > 0) figures.push(perTurn(events)); // the first one warms up
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

interface RestateFigures {
  floor: number[];
  turns: number[];
  cpuPerTurn: number;
  read: number;
}

async function onRestate(): Promise<RestateFigures> {
  // RESTATE_* variables given to the bench reach the server (e.g. RESTATE_BIFROST__LOCAL__ROCKSDB_DISABLE_WAL_FSYNC=true).
  const server = await RestateServer.start(Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('RESTATE_') && e[1] !== undefined)));
  const { startWorker } = await loadWorkerModules();
  const data = mkdtempSync(join(tmpdir(), 'troupe-bench-worker-'));
  const worker = await startWorker({ team: team(), model: new InstantModel(), prices: PriceTable.empty(), env: {}, dataDir: data, workflows: null, port: 0, host: '127.0.0.1', log: () => undefined });
  const floorEndpoint = await startFloor();
  try {
    await registerDeployment(server.adminUrl, worker.url);
    await registerDeployment(server.adminUrl, floorEndpoint.url);
    const ingress = (await loadClients()).connect({ url: server.ingressUrl });
    const call = <T>(service: string, handler: string, key: string, parameter: unknown) => ingress.call<unknown, T>({ service, handler, key, parameter });

    // The floor: one durable step and one write per call, one call after another on one key.
    const floor: number[] = [];
    for (let i = 0; i < CALLS + 20; i++) {
      const t0 = performance.now();
      await call(FLOOR_OBJECT, 'call', 'k', i);
      if (i >= 20) floor.push(performance.now() - t0);
    }

    const turns: number[] = [];
    let cpu = 0;
    for (let i = 0; i <= SESSIONS; i++) {
      const id = randomUUID();
      const before = process.cpuUsage();
      await call('troupe_session', 'create', id, { brief: `Restate session ${i}` });
      let page: EventsPage = { events: [], lastSeq: 0, status: 'running' };
      while (page.status !== 'awaiting_user') {
        await new Promise((r) => setTimeout(r, 50));
        page = await call<EventsPage>('troupe_session', 'events', id, { after: 0, limit: 2_000 });
      }
      const used = process.cpuUsage(before);
      if (i > 0) {
        turns.push(perTurn(page.events));
        cpu += (used.user + used.system) / 1000;
      }
    }
    const reads: number[] = [];
    for (let j = 0; j < 30; j++) {
      const t0 = performance.now();
      await call('troupe_session', 'snapshot', randomUUID(), null).catch(() => undefined);
      reads.push(performance.now() - t0);
    }
    return { floor, turns, cpuPerTurn: cpu / (SESSIONS * TURNS), read: median(reads) };
  } finally {
    await floorEndpoint.close();
    await worker.close();
    await server.stop();
    rmSync(data, { recursive: true, force: true });
  }
}

export default async function bench(): Promise<void> {
  const local = median(await embedded());
  const { floor, turns, cpuPerTurn, read } = await onRestate();
  const perCall = median(floor);
  const restate = median(turns);
  process.stdout.write(`Restate per turn against its one-call floor (restate-server 1.7, worker in this process, instant model, ${TURNS}-turn team sessions, full-history prompts):\n`);
  process.stdout.write(`  one-call floor (ctx.run + ctx.set per call, median of ${CALLS}) ${ms(perCall).padStart(9)}\n`);
  process.stdout.write(`  Restate per turn (median of ${SESSIONS} sessions)            ${ms(restate).padStart(9)}  = ${(restate / perCall).toFixed(2)}x the floor (target ≤ 1.5x)\n`);
  process.stdout.write(`  embedded per turn (lowdb journal + checkpoints)            ${ms(local).padStart(9)}\n`);
  process.stdout.write(`  process CPU per Restate turn (worker, client and polling)   ${ms(cpuPerTurn).padStart(9)}\n`);
  process.stdout.write(`  one read-only call through the ingress                     ${ms(read).padStart(9)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await bench();
