import { z } from 'zod';
import { lazySchema } from '../config/lazy-schema.js';

const str = z.string();

/** The agent tools' events: a tool run in a workspace, and a command waiting for the user's word. */
export const TOOL_EVENT_PAYLOADS = lazySchema(
  () =>
    ({
      /** An agent ran a tool (file or command) in its workspace: started, then finished with ok or an error the model saw. */
      tool_call: z.object({ turn_id: str, persona: str, tool: str, summary: str, phase: z.enum(['started', 'finished']), ok: z.boolean().optional(), detail: str.optional(), branch: str.optional() }),
      /** A command an agent wants to run under the `ask` policy: asked (the user answers !allow or !deny), then allowed or denied. */
      command_approval: z.object({ id: str, phase: z.enum(['asked', 'allowed', 'denied']), command: str, cwd: str, persona: str, branch: str.optional() }),
    }) as const,
);

/** Payload of each of these events, keyed by its name. */
export type ToolEventMap = { [K in keyof typeof TOOL_EVENT_PAYLOADS]: z.infer<(typeof TOOL_EVENT_PAYLOADS)[K]> };

declare module '../engine/event-map.js' {
  interface PolicyEventMap extends ToolEventMap {}
}
