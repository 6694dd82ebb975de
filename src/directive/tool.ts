import { z } from 'zod';
import { DIRECTIVE_TOOL_NAME, DirectiveSchema } from './schema.js';

/** A function tool offered to a model (OpenAI-compatible shape, provider-neutral). */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** The `handoff_directive` tool, its parameters generated from the zod schema. */
export function directiveTool(): ToolSpec {
  const parameters = z.toJSONSchema(DirectiveSchema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  delete parameters.$schema;
  return {
    name: DIRECTIVE_TOOL_NAME,
    description:
      'Declare what happens after your turn: approve and hand off, request rework, hand to a named persona, ask the user, or complete. Call it exactly once, after your message.',
    parameters,
  };
}
