import { z } from 'zod';
import type { ToolSpec } from '../directive/tool.js';
import { TroupeError } from '../errors.js';
import type { ToolLimits } from './limits.js';

/** A refusal or failure the model should read: the tool layer turns it into an error result, never a throw. */
export class ToolError extends TroupeError {}

/** What a tool hands back: the text the model sees, whether it worked, and an optional line for the UI. */
export interface ToolResult {
  ok: boolean;
  content: string;
  /** A short line for the UI (`tool_call` event `detail`), e.g. "exit code 1". */
  detail?: string;
}

/** What every tool runs against: the workspace (a real path, symlinks resolved), the caps, the abort signal. */
export interface ToolContext {
  root: string;
  /** What the workspace's budget holds: the directory it was made in (a clone's top, whose `.git` commands write) when root is a subdirectory of it, else root. */
  budgetRoot: string;
  limits: ToolLimits;
  signal?: AbortSignal;
}

/** An agent tool: its spec for the model, its argument schema, what it shows in the UI, and what it does. */
export interface AgentTool<A = unknown> {
  spec: ToolSpec;
  args: z.ZodType<A>;
  /** A one-line summary of a call, e.g. "read_file src/a.ts". */
  summary(args: A): string;
  /** Does the work; throws ToolError for refusals the model should read. */
  run(args: A, context: ToolContext): Promise<ToolResult>;
}

/** A tool's spec with its JSON-Schema parameters derived from its zod argument schema. */
export function toolSpec(name: string, description: string, args: z.ZodType): ToolSpec {
  const { $schema: _draft, ...parameters } = z.toJSONSchema(args, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  return { name, description, parameters };
}

/** Declares a tool with its types tied together. */
export function defineTool<A>(tool: AgentTool<A>): AgentTool<A> {
  return tool;
}

/** An error result in the form the model reads. */
export function toolFailure(message: string, detail?: string): ToolResult {
  return { ok: false, content: `Error: ${message}`, ...(detail !== undefined ? { detail } : {}) };
}

/** Text cut to `max` characters with a note saying how much was left out. */
export function capText(text: string, max: number, hint = ''): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[truncated: ${text.length - max} more characters${hint ? `; ${hint}` : ''}]`;
}
