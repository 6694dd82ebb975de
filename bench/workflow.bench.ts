// Declarative workflows on the engine: a transition with a condition evaluated in the QuickJS sandbox
// next to a team transition (both around an instant model, interleaved), and parallel fan-out of 3 and
// 10 branches whose model takes 200 ms: the wall time to the join next to the slowest branch.
import { performance } from 'node:perf_hooks';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import { openSession } from '../src/session/open-session.js';
import type { AgentPlan, StatePlan, WorkflowPlan } from '../src/workflow/run/plan.js';
import { studio } from '../tests/helpers/team.js';
import { interleaved, median, ms, QUICK, ratio } from './stats.js';

const LOOPS = 100;
const RUNS = QUICK ? 3 : 9;
const LATENCY_MS = 200;

const expr = (source: string) => ({ kind: 'expression' as const, source });
const state = (s: Partial<StatePlan> & { name: string }): StatePlan => ({
  enter: null, agent: null, input: null, action: 'send', after: null, subWorkflow: null, parallel: null, debate: null, transitions: [], decide: null, maxRetries: 0, final: false, ...s,
});
const agent = (id: string): AgentPlan => ({ id, context: 'c', role: 'assistant', name: id, systemMessage: `You are ${id}.`, model: 'base', parsingTools: [], requestUserInput: false, tools: [], maxToolSteps: 20 });
const workflow = (name: string, agents: string[], states: StatePlan[]): WorkflowPlan => ({
  name, description: '', input: { name: 'task' }, output: { name: 'result' }, variables: {},
  contexts: [{ name: 'c', starting: [], maxLength: 20_000 }], agents: agents.map(agent), states,
  start: states[0]!.name, resume: null, errorHandler: null, script: null, subWorkflows: {}, source: 'bench',
});

/** One agent working in a loop: after each answer a condition in the sandbox decides whether to go round again. */
const loop = workflow('loop', ['worker'], [
  state({ name: 'work', agent: 'worker', input: expr('input'), transitions: [{ target: 'work', condition: expr("last_agent_response !== 'done'"), before: null }, { target: 'stop', condition: expr('true'), before: null }] }),
  state({ name: 'stop', final: true }),
]);

/** `n` branches at once, joined when all are done. */
const fanout = (n: number) => {
  const ids = Array.from({ length: n }, (_, i) => `b${i}`);
  return workflow(`fanout_${n}`, ids.map((id) => `impl_${id}`), [
    state({ name: 'implement', parallel: { branches: ids.map((id) => ({ id, agent: `impl_${id}`, input: null, workspace: false })), join: 'all', onFailure: 'continue', timeoutMs: 60_000, into: 'results' }, transitions: [{ target: 'stop', condition: null, before: null }] }),
    state({ name: 'stop', final: true }),
  ]);
};

/** Answers workflow turns ('again' until the last, then 'done') and team turns (a handoff round the studio), after `delayMs`. */
class BenchModel implements ChatModel {
  readonly label = 'bench';
  private calls = 0;
  constructor(private readonly loops: number, private readonly delayMs = 0) {}
  async generate(req: ChatRequest): Promise<ChatResponse> {
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    this.calls += 1;
    if (req.meta.purpose !== 'persona' || !req.meta.handoffTo) return { text: this.calls >= this.loops ? 'done' : 'again', toolCalls: [], usage: null, finishReason: 'stop', model: 'bench' };
    const next = req.meta.handoffTo[this.calls % req.meta.handoffTo.length]!;
    const directive = this.calls >= this.loops ? { transition: 'RESPOND_TO_USER' } : { transition: 'HANDOFF_TO_AGENT', next_agent: next };
    return { text: 'again', toolCalls: [{ name: 'handoff_directive', arguments: JSON.stringify(directive) }], usage: null, finishReason: 'tool_calls', model: 'bench' };
  }
}

/** Per transition of a session on an instant model, from its 10th transition (the sandbox's worker has started by then) until it settles. */
async function perTransition(plan: WorkflowPlan | null): Promise<number> {
  const session = await openSession({ team: studio({ maxTurns: 100_000 }), ...(plan ? { workflow: plan } : {}), model: new BenchModel(LOOPS), id: 'bench', env: {}, memory: false });
  session.team.def.limits = { ...session.team.def.limits, ping_pong: 100_000 };
  let transitions = 0;
  let t0 = 0;
  session.subscribe((e) => {
    if (e.type === 'transition' && ++transitions === 10) t0 = performance.now();
  });
  session.start('bench task');
  await session.settled();
  const took = (performance.now() - t0) / (transitions - 10);
  await session.stop();
  return took;
}

/** Wall time from start to the join of a fan-out whose every branch's model takes LATENCY_MS. */
async function fanoutWall(n: number): Promise<number> {
  const session = await openSession({ team: studio(), workflow: fanout(n), model: new BenchModel(1, LATENCY_MS), id: 'bench', env: {}, memory: false });
  const t0 = performance.now();
  let joined = 0;
  session.subscribe((e) => void (e.type === 'joined' && (joined = performance.now() - t0)));
  session.start('bench task');
  await session.settled();
  await session.stop();
  return joined;
}

export default async function workflows(): Promise<void> {
  const t = await interleaved(RUNS, 1, { team: () => perTransition(null), workflow: () => perTransition(loop) });
  const [team, wf] = [median(t.team), median(t.workflow)];
  process.stdout.write(`per transition, instant model, transitions 10-${LOOPS}, median of ${RUNS} interleaved runs:\n`);
  process.stdout.write(`  workflow transition (agent turn + condition in the QuickJS sandbox)   ${ms(wf).padStart(9)} = ${ratio(wf, team)} the team transition\n`);
  process.stdout.write(`  team transition (agent turn + directive + arbiter, full-history prompt) ${ms(team).padStart(9)}\n`);
  const f = await interleaved(RUNS, 1, { three: () => fanoutWall(3), ten: () => fanoutWall(10) });
  process.stdout.write(`parallel fan-out, every branch's model ${LATENCY_MS} ms, join all (median of ${RUNS} interleaved runs):\n`);
  for (const [n, wall] of [[3, median(f.three)], [10, median(f.ten)]] as const) {
    process.stdout.write(`  ${String(n).padStart(2)} branches: start to join ${ms(wall).padStart(9)} = ${ratio(wall, LATENCY_MS)} the slowest branch (${LATENCY_MS} ms)\n`);
  }
}
