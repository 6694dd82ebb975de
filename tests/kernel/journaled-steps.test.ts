import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { initialState } from '../../src/engine/step.js';
import type { StepRunner } from '../../src/kernel/ports.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/llm/chat-model.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { assembleSession } from '../../src/session/assemble.js';
import { teamKind } from '../../src/session/session-kind.js';
import { loadPriceTable } from '../../src/usage/price-table.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import { fixedClock, studio } from '../helpers/team.js';

/** A journaled step runner as a durable backend is one: finished steps are kept; a replay answers from them without running the work. */
class KeptSteps implements StepRunner {
  readonly kind = 'journaled' as const;
  readonly kept: { name: string; value: string }[] = [];
  private replayed = 0;
  constructor(private readonly replay: { name: string; value: string }[] = []) {}
  async run<T>(name: string, work: (signal: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T> {
    const old = this.replay[this.replayed];
    if (old) {
      this.replayed += 1;
      if (old.name !== name) throw new Error(`replay diverged: step ${this.replayed} was "${old.name}", now "${name}"`);
      return JSON.parse(old.value) as T;
    }
    const value = await work(signal);
    this.kept.push({ name, value: JSON.stringify(value) });
    return value;
  }
}

/** A model that fails its first call once with a retry (as the OpenAI adapter reports one), then answers from the script. */
function retryingOnce(inner: ScriptedModel): ChatModel {
  let first = true;
  return {
    label: inner.label,
    generate(request: ChatRequest): Promise<ChatResponse> {
      if (first) {
        first = false;
        request.onRetry?.({ attempt: 1, waitMs: 0, reason: 'HTTP 503' });
      }
      return inner.generate(request);
    },
  };
}

const script = () => [
  { text: 'Concept: a lighthouse that remembers.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' }, usage: { promptTokens: 100, completionTokens: 10 } },
  { text: 'Loop: keep the light, log the ships.', directive: { transition: 'RESPOND_TO_USER' }, usage: { promptTokens: 200, completionTokens: 20 } },
];

async function run(model: ChatModel, steps: StepRunner): Promise<TroupeEvent[]> {
  const team = studio();
  const kind = teamKind(team, { env: { TROUPE_MODEL: 'test-model' } });
  const { session } = await assembleSession({
    kind,
    team,
    state: initialState(kind.def, { id: 's-steps' }),
    lastSeq: 0,
    clock: fixedClock(),
    model,
    meter: new UsageMeter(loadPriceTable({})),
    steps,
    journal: null,
    memory: false,
    savedMemory: null,
    history: null,
    tail: [],
    workspaceRoot: '/nonexistent',
    askCommands: false,
    store: null,
    brief: '',
    recent: [],
    keep: 500,
    graceMs: 0,
    env: { TROUPE_MODEL: 'test-model' },
  });
  const events: TroupeEvent[] = [];
  session.subscribe((e) => {
    if (e.type !== 'agent_delta') events.push(e);
  });
  session.start('A lighthouse game');
  await session.settled();
  await session.stop();
  return events;
}

const shape = (events: TroupeEvent[]) => events.map(({ at: _a, ...e }) => e);

describe('the kernel on journaled steps', () => {
  it('makes every model call one kept step, and tells its retries after the step', async () => {
    const steps = new KeptSteps();
    const events = await run(retryingOnce(new ScriptedModel(script())), steps);
    expect(steps.kept.map((k) => k.name)).toEqual(['model creative_partner', 'model game_designer']);
    const types = events.map((e) => e.type);
    // The retry happened inside the step; it is published once the step is kept, before the answer is applied.
    expect(types.indexOf('retry')).toBeGreaterThan(types.indexOf('agent_started'));
    expect(types.indexOf('retry')).toBeLessThan(types.indexOf('agent_message'));
    expect(events.filter((e) => e.type === 'usage').map((e) => (e as { total_tokens: number }).total_tokens)).toEqual([110, 330]);
  });

  it('a replay from the kept steps makes no model call and publishes the same events (usage and retries too)', async () => {
    const first = new KeptSteps();
    const original = await run(retryingOnce(new ScriptedModel(script())), first);
    const silent = new ScriptedModel([]);
    const replayed = await run(silent, new KeptSteps(first.kept));
    expect(silent.calls).toHaveLength(0);
    expect(shape(replayed)).toEqual(shape(original));
  });
});
