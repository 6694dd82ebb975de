import type { Team } from '../config/team-schema.js';
import type { MachineDefinition } from '../engine/definition.js';
import { event, type EngineEvent } from '../engine/event-map.js';
import type { ChatModel, RetryInfo } from '../llm/chat-model.js';
import { resolveModelId } from '../llm/model-resolver.js';
import type { TroupeBus } from '../kernel/bus.js';
import { Memory } from './memory.js';
import { MemoryPromptBuilder } from './memory-prompt-builder.js';
import { ModelSummariser, type Summariser } from './summariser.js';
import { namesFor } from './names.js';
import { idAsName } from './render.js';

/** What `attachMemory` needs. */
export interface AttachMemoryOptions {
  bus: TroupeBus;
  /** Where memory publishes its events (the session's runtime facts). */
  publish: (e: EngineEvent) => void;
  /** team.json's `memory` settings and tier models. */
  team: Pick<Team, 'memory' | 'models'>;
  /** The chat model; summaries use it with the `fast` tier's model id. */
  model: ChatModel;
  /** For display names in summaries and pinned lines. */
  def?: MachineDefinition;
  /** Restored memory (from `memory.toJSON()`). */
  state?: unknown;
  /** Replaces the model-backed summariser (tests). */
  summariser?: Summariser;
  /** False when the model is already metered (its usage events come from the meter). */
  reportUsage?: boolean;
  /** Told before each retry of a summary call. */
  onRetry?: (info: RetryInfo) => void;
  env?: Record<string, string | undefined>;
}

/** A memory wired to a bus, its prompt builder (pass as the Runner's `prompt`), and a way to unhook it. */
export interface AttachedMemory {
  memory: Memory;
  prompt: MemoryPromptBuilder;
  detach(): void;
}

/**
 * Builds the memory and subscribes it to the bus: user lines, persona messages, directives and
 * approvals become typed raw turns and pins. The engine is not touched.
 */
export function attachMemory(options: AttachMemoryOptions): AttachedMemory {
  const { bus, team, def } = options;
  const publish = options.publish;
  const nameOf = def ? namesFor(def) : idAsName;
  const summariser =
    options.summariser ??
    new ModelSummariser({
      model: options.model,
      modelId: resolveModelId('fast', team.models, options.env),
      nameOf,
      ...(options.onRetry ? { onRetry: options.onRetry } : {}),
      onUsage: (u, model) =>
        options.reportUsage !== false &&
        publish(
          event('usage', {
            persona: null,
            model,
            prompt_tokens: u.promptTokens,
            completion_tokens: u.completionTokens,
            cost: null,
            total_tokens: u.promptTokens + u.completionTokens,
            total_cost: null,
          }),
        ),
    });
  const base = { config: team.memory, summariser, publish, nameOf };
  const memory = options.state === undefined ? new Memory(base) : Memory.fromJSON(options.state, base);
  const onUser = (e: { text: string }) => memory.recordUser(e.text);
  const onMessage = (e: { turn_id: string; persona: string; text: string; turn: number }) => memory.recordAgent({ turnId: e.turn_id, persona: e.persona, text: e.text, turn: e.turn });
  const onDirective = (e: { turn_id: string; persona: string; directive: Parameters<Memory['recordDirective']>[0]['directive'] }) =>
    memory.recordDirective({ turnId: e.turn_id, persona: e.persona, directive: e.directive });
  const onApproval = (e: { by: string; of: string; status: 'APPROVED' | 'REQUEST_REWORK'; reason?: string }) => memory.recordApproval(e);
  bus.on('user_input', onUser);
  bus.on('agent_message', onMessage);
  bus.on('directive', onDirective);
  bus.on('approval', onApproval);
  return {
    memory,
    prompt: new MemoryPromptBuilder(memory, { budget: team.memory.prompt_budget, publish }),
    detach: () => {
      bus.off('user_input', onUser);
      bus.off('agent_message', onMessage);
      bus.off('directive', onDirective);
      bus.off('approval', onApproval);
    },
  };
}
