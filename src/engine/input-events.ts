import { z } from 'zod';
import { lazySchema } from '../config/lazy-schema.js';

/** The typed command line a user input came from, kept for the `command` event. */
export const CommandSchema = z.object({ name: z.string(), args: z.array(z.string()) }).optional();

/**
 * The inputs the core itself knows: a session's lifecycle (its brief, a process letting go, a budget
 * reached), the user's text and the steering every kind has (approve, continue, quit), and an agent call
 * that failed. Every input is appended to the session's journal, so folding `step()` over the journal
 * rebuilds the session exactly.
 */
export const CORE_INPUT_SCHEMAS = lazySchema(
  () =>
    [
      z.object({ type: z.literal('start'), brief: z.string(), model: z.string().optional() }),
      z.object({ type: z.literal('agent_failed'), turnId: z.string(), reason: z.string() }),
      z.object({ type: z.literal('user_message'), text: z.string() }),
      z.object({ type: z.literal('user_approve'), command: CommandSchema }),
      z.object({ type: z.literal('user_continue'), command: CommandSchema }),
      z.object({ type: z.literal('user_quit'), command: CommandSchema }),
      z.object({ type: z.literal('budget_exceeded'), reason: z.string(), turnId: z.string().optional() }),
      /** The process lets go of a session that is not over (quit, or a headless run that stops waiting). */
      z.object({ type: z.literal('detach'), reason: z.string(), detail: z.string().optional(), command: CommandSchema }),
    ] as const,
  [],
);

/** An input the core handles itself. */
export type CoreInput = z.infer<(typeof CORE_INPUT_SCHEMAS)[number]>;

/**
 * The inputs each policy adds, by name: a policy module declares its own with
 * `declare module '…/engine/input-events.js' { interface PolicyInputs { … } }` and their schemas for the
 * journal (the registry in src/kinds/ assembles them). The core passes them to the definition's policy.
 */
// biome-ignore lint/suspicious/noEmptyInterface: an interface, so policy modules can add to it (declaration merging); a type alias cannot be
export interface PolicyInputs {}

/** Everything the engine consumes: the core's inputs and every policy's. */
export type EngineInput = CoreInput | PolicyInputs[keyof PolicyInputs];
