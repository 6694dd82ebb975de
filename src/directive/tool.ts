import { z } from 'zod';
import { DIRECTIVE_TOOL_NAME, DirectiveSchema } from './schema.js';

/** A function tool offered to a model (OpenAI-compatible shape, provider-neutral). */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** How strongly a call asks for a tool call; `{ name }` forces that one tool. */
export type ToolChoice = 'auto' | 'required' | 'none' | { name: string };

let cached: ToolSpec | undefined;

/** The `handoff_directive` tool, its parameters generated once from the zod schema. */
export function directiveTool(): ToolSpec {
  if (cached) return cached;
  const parameters = z.toJSONSchema(DirectiveSchema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  delete parameters.$schema;
  cached = {
    name: DIRECTIVE_TOOL_NAME,
    description: 'Declare what happens after your turn: approve and hand off, request rework, hand to a named persona, ask the user, or complete. Call it exactly once, after your message.',
    parameters,
  };
  return cached;
}

/**
 * The tool fields of a persona call: the directive tool, forced by name in a repair round (the
 * model garbled or skipped its call; ToolFallbackModel weakens the forcing where a server refuses it).
 */
export function directiveToolRequest(call: { repair?: string }): { tools: ToolSpec[]; toolChoice?: ToolChoice } {
  return call.repair ? { tools: [directiveTool()], toolChoice: { name: DIRECTIVE_TOOL_NAME } } : { tools: [directiveTool()] };
}
