import type { Mode } from '../engine/definition.js';
import type { SessionState } from '../engine/session.js';
import type { EngineInput } from '../engine/input-events.js';
import type { ChatModel } from '../llm/chat-model.js';
import { attachMemory, type AttachedMemory } from '../memory/attach-memory.js';
import { seedMemory } from '../memory/seed-memory.js';
import { MeteredModel } from '../usage/metered-model.js';
import { restoreUsage, type UsageMeter } from '../usage/usage-meter.js';
import { TroupeBus } from './bus.js';
import type { OpenTeam } from './open-team.js';
import { Runner } from './runner.js';

/** What a session's runtime is built from: the team, the model, and optional meter, memory and saved state. */
export interface BuildRunnerOptions {
  team: OpenTeam;
  model: ChatModel;
  sessionId: string;
  mode?: Mode;
  /** Continue from this engine state. */
  session?: SessionState;
  clock?: () => Date;
  meter?: UsageMeter;
  /** Saved usage totals to continue counting from. */
  usageState?: unknown;
  /** Saved memory (from `memory.toJSON()`). */
  memoryState?: unknown;
  /** Use the rolling memory (default: team.json `memory.enabled`). */
  memory?: boolean;
  onStep?: (session: SessionState, input: EngineInput) => void;
}

/** A runner wired to its memory and meter. */
export interface BuiltRunner {
  runner: Runner;
  bus: TroupeBus;
  memory: AttachedMemory | null;
}

/** The one place a session's runner is assembled: bus, rolling memory, usage meter and budgets. */
export function buildRunner(options: BuildRunnerOptions): BuiltRunner {
  const { team, model, meter } = options;
  const bus = new TroupeBus(options.session?.id ?? options.sessionId, options.clock);
  if (meter && options.usageState !== undefined) restoreUsage(meter, options.usageState);
  const useMemory = options.memory ?? team.loaded.team.memory.enabled;
  // Summary calls go through the meter too, so budgets and cost include them.
  const memory = useMemory
    ? attachMemory({
        bus,
        team: team.loaded.team,
        model: meter ? new MeteredModel(model, meter) : model,
        def: team.def,
        reportUsage: !meter,
        ...(options.memoryState !== undefined && options.memoryState !== null ? { state: options.memoryState } : {}),
      })
    : null;
  // A session saved without memory (an older file) rebuilds it from its transcript.
  const saved = options.memoryState !== undefined && options.memoryState !== null;
  if (memory && !saved && options.session && options.session.transcript.length > 0) seedMemory(memory.memory, options.session);
  const runner = new Runner({
    def: team.def,
    prompts: team.loaded.prompts,
    model,
    modelFor: team.modelFor,
    sessionId: options.sessionId,
    bus,
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.session ? { session: options.session } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(meter ? { meter } : {}),
    ...(memory ? { prompt: memory.prompt } : {}),
    ...(options.onStep ? { onStep: options.onStep } : {}),
  });
  return { runner, bus, memory };
}
