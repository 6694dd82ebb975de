import type { ChatMessage, ChatModel, ChatRequest, ChatResponse } from '../../src/llm/chat-model.js';
import { DIRECTIVE_TOOL_NAME } from '../../src/directive/schema.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { MemorySchema, type MemoryConfig } from '../../src/config/team-schema.js';
import type { Memory } from '../../src/memory/memory.js';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { openSession } from '../../src/session/open-session.js';
import type { TroupeSession } from '../../src/session/troupe-session.js';
import { fixedClock, studio } from '../helpers/team.js';

// A loop through four personas that may hand to each other; no trigger-rule keywords in the text.
const CYCLE = ['creative_partner', 'game_designer', 'lead_engineer', 'ceo'];
const TOPICS = ['lantern puzzle', 'tide chart', 'keeper journal', 'storm sequence', 'fog horn', 'boat repair', 'island map', 'gull companion', 'radio log', 'supply drop', 'cliff path', 'lens polish'];

/** The text a persona speaks at turn n: varied, about 60 tokens, no trigger keywords. */
export function turnText(n: number): string {
  const t = (k: number) => TOPICS[(n * 7 + k * 5) % TOPICS.length]!;
  return `On the ${t(0)} we looked at the ${t(1)}, the ${t(2)} and how they read at night. I suggest we rework the ${t(3)} before chapter ${(n % 6) + 1} so the player sees the change. Open question: should the ${t(4)} react to the weather in turn ${n}?`;
}

/** Options of the scripted long-session model. */
export interface LongSessionOptions {
  /** Persona turn number -> key decisions returned with that turn. */
  decisions?: Record<number, string[]>;
  /** The turn whose directive is COMPLETE (the session then waits for the user). */
  lastTurn: number;
  /** Answers summary calls; the demo summariser by default. */
  summary?: (request: ChatRequest) => Promise<ChatResponse>;
  /** Persona call latency (real timers; benches only). */
  delayMs?: number;
  /**
   * Deterministic latency for tests: microtask turns each persona call takes, so a summary call
   * (a few microtasks) finishes within one persona turn, as it would with real model latencies.
   */
  yields?: number;
}

/** A scripted model that plays a long studio session, recording every persona prompt by turn. */
export class LongSessionModel implements ChatModel {
  readonly label = 'long session model';
  readonly prompts = new Map<number, ChatMessage[]>();
  summaryCalls = 0;
  private turn = 0;
  private readonly demo = new DemoModel();

  constructor(private readonly options: LongSessionOptions) {}

  async generate(request: ChatRequest): Promise<ChatResponse> {
    if (request.meta.purpose === 'summary') {
      this.summaryCalls += 1;
      return this.options.summary ? this.options.summary(request) : this.demo.generate(request);
    }
    const n = ++this.turn;
    this.prompts.set(n, request.messages);
    if (this.options.delayMs) await new Promise((r) => setTimeout(r, this.options.delayMs));
    for (let i = 0; i < (this.options.yields ?? 0); i++) await Promise.resolve();
    const me = CYCLE.indexOf(request.meta.persona ?? '');
    const next = CYCLE[(me + 1) % CYCLE.length]!;
    const keys = this.options.decisions?.[n];
    const directive =
      n >= this.options.lastTurn ? { transition: 'COMPLETE' } : { transition: n % 3 === 0 ? 'APPROVE_AND_HANDOFF' : 'HANDOFF_TO_AGENT', next_agent: next, ...(keys ? { key_decisions: keys } : {}) };
    return { text: turnText(n), toolCalls: [{ name: DIRECTIVE_TOOL_NAME, arguments: JSON.stringify(directive) }], usage: null, finishReason: 'tool_calls', model: request.model };
  }
}

/** A session on the studio team with memory on (or off: `prompt: null`), collecting every event. */
export async function memoryRunner(
  model: ChatModel,
  options: { memory?: Partial<MemoryConfig>; maxTurns?: number; prompt?: null } = {},
): Promise<{ runner: TroupeSession; events: TroupeEvent[]; attached: { memory: Memory } | null }> {
  const team = studio({ maxTurns: options.maxTurns ?? 400 });
  team.loaded.team.memory = MemorySchema.parse({ ...team.loaded.team.memory, ...options.memory });
  const runner = await openSession({ team, model, id: 's-test', clock: fixedClock(), memory: options.prompt !== null, env: { TROUPE_MODEL: 'test-model' } });
  const events: TroupeEvent[] = [];
  runner.subscribe((e) => events.push(e));
  const memory = runner.memory;
  return { runner, events, attached: memory ? { memory } : null };
}

/** Runs a brief until the session waits for the user, then lets memory settle. */
export async function runToEnd(runner: TroupeSession, attached: { memory: Memory } | null, brief = 'A cozy lighthouse game'): Promise<void> {
  runner.start(brief);
  await runner.settled();
  await attached?.memory.idle();
}
