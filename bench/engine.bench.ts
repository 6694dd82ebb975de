// Engine overhead per transition with a zero-latency model: the pure step() as sessions grow and teams
// widen, the bare session (full-history prompt, parse, events) and the path the CLI runs (rolling
// memory, usage meter, the journal on disk) around an instant model, measured in one run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { MachineDefinition } from '../src/engine/definition.js';
import type { SessionState } from '../src/engine/session.js';
import { initialState, step } from '../src/engine/step.js';
import { compileTeam } from '../src/routing/compile-team.js';
import { loadTeamOrThrow, type LoadedTeam } from '../src/config/load-team.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import { openSession } from '../src/session/open-session.js';
import { LowdbStore } from '../src/store/lowdb-store.js';
import { UsageMeter } from '../src/usage/usage-meter.js';
import { generatedTeam } from './team-fixtures.js';
import { median, ms } from './stats.js';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const TURNS = 200;
const RUNS = 7;

/** Deterministic pseudo-random handoffs with two alternatives, answered instantly. */
class InstantModel implements ChatModel {
  readonly label = 'instant';
  private seed = 7;
  constructor(private readonly ids: string[]) {}
  private pick(not: string): string {
    let id = not;
    while (id === not) {
      this.seed = (this.seed * 1103515245 + 12345) % 2147483648;
      id = this.ids[this.seed % this.ids.length]!;
    }
    return id;
  }
  async generate(req: ChatRequest): Promise<ChatResponse> {
    if (req.meta.purpose === 'summary') return { text: '{"decisions":["d"],"discussions":["talk"],"pending":[]}', toolCalls: [], usage: null, finishReason: 'stop', model: 'instant' };
    const self = req.meta.persona!;
    const d = { transition: 'APPROVE_AND_HANDOFF', next_agent: this.pick(self), urgency: 0.5, dependency: 0.6, user_intent: 0.4,
      alternatives: [{ next_agent: this.pick(self), urgency: 0.4, dependency: 0.5, user_intent: 0.5 }, { next_agent: this.pick(self), urgency: 0.3 }] };
    return { text: `${self} says something about topic${this.seed % 50}.`, toolCalls: [{ name: 'handoff_directive', arguments: JSON.stringify(d) }], usage: null, finishReason: 'tool_calls', model: 'instant' };
  }
}

function open(loaded: LoadedTeam): MachineDefinition {
  const def = compileTeam(loaded);
  def.limits = { ...def.limits, max_turns: 1_000_000, ping_pong: 1_000, max_reworks_per_pair: 1_000 };
  def.arbiter = { ...def.arbiter, blockingDependency: null };
  return def;
}

/** Per transition of a whole session on an instant model: `cli` adds memory, the meter and the journal on disk, as the CLI runs it. */
async function sessionPerTransition(loaded: LoadedTeam, cli: boolean): Promise<number> {
  const def = open(loaded);
  const samples: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const dir = cli ? mkdtempSync(join(tmpdir(), 'troupe-bench-')) : null;
    const model = new InstantModel(def.agents.map((a) => a.id));
    const session = await openSession({
      team: { loaded, def, modelFor: () => 'instant' },
      model,
      id: 'bench',
      env: {},
      memory: cli,
      ...(cli ? { meter: new UsageMeter(), store: new LowdbStore(dir!) } : {}),
    });
    let transitions = 0;
    session.subscribe((e) => {
      if (e.type === 'transition') transitions++;
      if (e.type === 'agent_message' && e.turn >= TURNS) session.send({ type: 'user_quit' });
    });
    const t0 = performance.now();
    session.start('bench brief');
    await session.settled();
    samples.push((performance.now() - t0) / transitions);
    await session.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
  return median(samples);
}

/** The pure step() per transition, timed over the last turns before `turns` (so a long session is measured where it is long). */
function stepPerTransition(loaded: LoadedTeam, turns: number): number {
  const def = open(loaded);
  const ids = def.agents.map((a) => a.id);
  const samples: number[] = [];
  const window = Math.min(200, turns);
  for (let r = 0; r < RUNS; r++) {
    let s: SessionState = step(def, initialState(def, { id: 'b' }), { type: 'start', brief: 'b' }).session;
    let t0 = 0;
    for (let i = 0; i < turns; i++) {
      if (i === turns - window) t0 = performance.now();
      const self = s.inFlight!.persona;
      const next = ids[(ids.indexOf(self) + 1 + (i % 3)) % ids.length]!;
      const directive = { transition: 'APPROVE_AND_HANDOFF' as const, next_agent: next, urgency: 0.5, dependency: 0.6, user_intent: 0.4, alternatives: [{ next_agent: ids[(i * 7) % ids.length]! }] };
      s = step(def, s, { type: 'agent_completed', turnId: s.inFlight!.turnId, text: `turn ${i} on topic${i % 40}`, directive: { ok: true, source: 'tool', directive } }).session;
    }
    samples.push((performance.now() - t0) / window);
  }
  return median(samples);
}

export default async function (): Promise<void> {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const teams: [string, LoadedTeam][] = [['8 personas', loadTeamOrThrow(root)], ['200 personas', generatedTeam(200)]];
  process.stdout.write(`engine overhead per transition, zero-latency model, median of ${RUNS} runs\n`);
  for (const [name, loaded] of teams) {
    const steps = [20, 200, 2000].map((t) => `${t} turns ${ms(stepPerTransition(loaded, t))}`).join(' · ');
    process.stdout.write(`  step(), ${name}: ${steps}   (target <= 30 µs at 200 personas and 2,000 turns)\n`);
  }
  for (const [name, loaded] of teams) {
    const bare = await sessionPerTransition(loaded, false);
    const cli = await sessionPerTransition(loaded, true);
    process.stdout.write(`  ${name}, ${TURNS} turns: bare session (full-history prompt, parse, events) ${ms(bare)}; CLI path (memory, meter, journal on disk) ${ms(cli)} = ${(cli / bare).toFixed(2)}x   (target <= 1.2x)\n`);
  }
}
