import { z } from 'zod';
import { DirectiveResultSchema } from '../directive/schema.js';
import { CommandSchema } from '../engine/input-events.js';
import { ModeSchema } from '../engine/session.js';
import { lazySchema } from '../config/lazy-schema.js';

/** The inputs the team policy adds: a persona's answer with its directive, and the team's steering commands. */
export const TEAM_INPUT_SCHEMAS = lazySchema(
  () =>
    [
      z.object({ type: z.literal('agent_completed'), turnId: z.string(), text: z.string(), directive: DirectiveResultSchema }),
      z.object({ type: z.literal('user_rework'), reason: z.string(), command: CommandSchema }),
      z.object({ type: z.literal('user_handoff'), target: z.string(), command: CommandSchema }),
      z.object({ type: z.literal('user_switch_major'), major: z.string(), command: CommandSchema }),
      z.object({ type: z.literal('user_call_agent'), target: z.string(), message: z.string(), command: CommandSchema }),
      z.object({ type: z.literal('user_mode'), mode: ModeSchema, command: CommandSchema }),
    ] as const,
  [],
);

/** An input of the team policy. */
export type TeamInput = z.infer<(typeof TEAM_INPUT_SCHEMAS)[number]>;

declare module '../engine/input-events.js' {
  interface PolicyInputs {
    team: TeamInput;
  }
}
