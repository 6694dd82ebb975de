// Engine overhead per transition with a zero-latency model: the pure step() alone, and the whole
// runner (prompt building, directive parsing, events) around an instant model.
import { performance } from 'node:perf_hooks';
import { compileTeam, type MachineDefinition } from '../src/engine/definition.js';
import { createSession, type SessionState } from '../src/engine/session.js';
import { step } from '../src/engine/step.js';
import { loadTeamOrThrow, type LoadedTeam } from '../src/config/load-team.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import { Runner } from '../src/runtime/runner.js';
import { buildRunner } from '../src/runtime/build-runner.js';
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

async function runnerPerTransition(loaded: LoadedTeam): Promise<number> {
  const def = open(loaded);
  const samples: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const model = new InstantModel(def.agents.map((a) => a.id));
    const runner = new Runner({ def, prompts: loaded.prompts, model, modelFor: () => 'instant', sessionId: 'bench' });
    let transitions = 0;
    runner.bus.on('transition', () => transitions++);
    runner.bus.on('agent_message', (e) => {
      if (e.turn >= TURNS) runner.dispatch({ type: 'user_quit' });
    });
    const t0 = performance.now();
    runner.start('bench brief');
    await runner.settled();
    samples.push((performance.now() - t0) / transitions);
  }
  return median(samples);
}

/** The path the CLI runs: buildRunner with the team's memory (memory prompt builder, summaries) and a usage meter. */
async function cliPathPerTransition(loaded: LoadedTeam): Promise<number> {
  const def = open(loaded);
  const samples: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const model = new InstantModel(def.agents.map((a) => a.id));
    const team = { loaded, def, modelFor: () => 'instant' };
    const { runner, memory } = buildRunner({ team, model, sessionId: 'bench', meter: new UsageMeter(), memory: true });
    let transitions = 0;
    runner.bus.on('transition', () => transitions++);
    runner.bus.on('agent_message', (e) => {
      if (e.turn >= TURNS) runner.dispatch({ type: 'user_quit' });
    });
    const t0 = performance.now();
    runner.start('bench brief');
    await runner.settled();
    samples.push((performance.now() - t0) / transitions);
    await memory?.memory.idle();
  }
  return median(samples);
}

function stepPerTransition(loaded: LoadedTeam): number {
  const def = open(loaded);
  const ids = def.agents.map((a) => a.id);
  const samples: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    let s: SessionState = step(def, createSession(def, { id: 'b' }), { type: 'start', brief: 'b' }).session;
    const t0 = performance.now();
    for (let i = 0; i < TURNS; i++) {
      const self = s.inFlight!.persona;
      const next = ids[(ids.indexOf(self) + 1 + (i % 3)) % ids.length]!;
      const directive = { transition: 'APPROVE_AND_HANDOFF' as const, next_agent: next, urgency: 0.5, dependency: 0.6, user_intent: 0.4, alternatives: [{ next_agent: ids[(i * 7) % ids.length]! }] };
      s = step(def, s, { type: 'agent_completed', turnId: s.inFlight!.turnId, text: `turn ${i} on topic${i % 40}`, directive: { ok: true, source: 'tool', directive } }).session;
    }
    samples.push((performance.now() - t0) / TURNS);
  }
  return median(samples);
}

export default async function (): Promise<void> {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const teams: [string, LoadedTeam][] = [['default team (8 personas)', loadTeamOrThrow(root)], ['generated team (200 personas)', generatedTeam(200)]];
  process.stdout.write(`engine overhead per transition, zero-latency model, ${TURNS} turns, median of ${RUNS} runs\n`);
  for (const [name, loaded] of teams) {
    const pure = stepPerTransition(loaded);
    const whole = await runnerPerTransition(loaded);
    const cli = await cliPathPerTransition(loaded);
    process.stdout.write(`  ${name}: step() ${ms(pure)}; runner (full-history prompt, parse, events) ${ms(whole)}; CLI path (memory prompt, meter) ${ms(cli)} = ${(cli / whole).toFixed(2)}x the runner (target <= 1.2x)\n`);
  }
}
