import { realpathSync, statSync } from 'node:fs';
import type { ToolSpec } from '../directive/tool.js';
import { UserError } from '../errors.js';
import type { CommandPolicy } from './command-policy.js';
import { editFileTool } from './edit-file.js';
import { byteSetting, COMMAND_MEMORY_SETTING, DEFAULT_COMMAND_TOTAL_MEMORY_BYTES, DEFAULT_TOOL_LIMITS, type ToolLimits } from './limits.js';
import { listFilesTool } from './list-files.js';
import { readFileTool } from './read-file.js';
import { runCommandTool } from './run-command.js';
import { searchFilesTool } from './search-files.js';
import { capText, toolFailure, ToolError, type AgentTool, type ToolResult } from './tool.js';
import { writeFileTool } from './write-file.js';
import { workspaceMaxBytes } from './workspace-budget.js';

/** The agent tools, by name. */
export const TOOL_NAMES = ['read_file', 'write_file', 'edit_file', 'list_files', 'search_files', 'run_command'] as const;
/** The name of an agent tool. */
export type ToolName = (typeof TOOL_NAMES)[number];

/** What a toolset is made of: the workspace, which tools, the command policy, caps. */
export interface ToolsetOptions {
  /** The agent's working directory; every path is confined to it. */
  workspace: string;
  /** The tools offered (default: all six); run_command needs `commands` to run anything. */
  tools?: readonly string[];
  /** Which commands run_command may run; default deny. */
  commands?: CommandPolicy;
  limits?: Partial<ToolLimits>;
  /** PATH for commands; default: the parent's PATH. */
  path?: string;
  /** The directory the workspace was made in, when the workspace is a subdirectory of it (a git clone's top): commands see it read-only, its .git writable. */
  top?: string;
  /** Where bubblewrap is (commands run in its sandbox); default: found on the parent's PATH. */
  bwrap?: string;
}

/** One tool call's outcome: the result the model reads, and a one-line summary of the call for the UI. */
export interface ToolOutcome extends ToolResult {
  tool: string;
  summary: string;
}

/** Tools bound to one workspace: their specs for the model, and `run`, which never throws. */
export interface Toolset {
  /** The workspace as a real path. */
  readonly root: string;
  readonly specs: ToolSpec[];
  has(name: string): boolean;
  /** A one-line summary of a call, e.g. "read_file src/a.ts" (before it runs, for a started event). */
  summarize(call: { name: string; arguments: string }): string;
  run(call: { name: string; arguments: string }, signal?: AbortSignal): Promise<ToolOutcome>;
}

// A tool's own schema checks what its run receives (toolset.run parses first), so tools can share one type.
const erase = <A>(tool: AgentTool<A>): AgentTool<unknown> => tool as unknown as AgentTool<unknown>;

const shortText = (text: string, max = 100) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Builds the toolset of one agent; an unknown tool name is a UserError (it comes from a workflow file). */
export function createToolset(options: ToolsetOptions): Toolset {
  let root: string;
  try {
    root = realpathSync(options.workspace);
    if (!statSync(root).isDirectory()) throw new Error('not a directory');
  } catch {
    throw new UserError(`the workspace ${options.workspace} is not a directory`);
  }
  const limits: ToolLimits = {
    ...DEFAULT_TOOL_LIMITS,
    maxWorkspaceBytes: workspaceMaxBytes(),
    commandTotalMemoryBytes: byteSetting(process.env, COMMAND_MEMORY_SETTING, DEFAULT_COMMAND_TOTAL_MEMORY_BYTES),
    ...options.limits,
  };
  const budgetRoot = options.top !== undefined ? realpathSync(options.top) : root;
  const all: Record<ToolName, AgentTool<unknown>> = {
    read_file: erase(readFileTool),
    write_file: erase(writeFileTool),
    edit_file: erase(editFileTool),
    list_files: erase(listFilesTool),
    search_files: erase(searchFilesTool),
    run_command: erase(
      runCommandTool(options.commands ?? { mode: 'deny' }, {
        ...(options.path !== undefined ? { path: options.path } : {}),
        ...(options.top !== undefined ? { top: options.top } : {}),
        ...(options.bwrap !== undefined ? { bwrap: options.bwrap } : {}),
      }),
    ),
  };
  const names = options.tools ?? TOOL_NAMES;
  for (const name of names) {
    if (!(TOOL_NAMES as readonly string[]).includes(name)) throw new UserError(`unknown agent tool "${name}"; the tools are ${TOOL_NAMES.join(', ')}`);
  }
  const tools = new Map<string, AgentTool<unknown>>(names.map((n) => [n, all[n as ToolName]]));

  type Prepared = { tool: AgentTool<unknown>; args: unknown; summary: string } | { error: string; summary: string };
  const prepare = (call: { name: string; arguments: string }): Prepared => {
    const tool = tools.get(call.name);
    const summary = `${call.name} ${shortText(call.arguments, 60)}`;
    if (!tool) return { error: `unknown tool "${call.name}"; the tools here are ${[...tools.keys()].join(', ')}`, summary };
    let raw: unknown;
    try {
      raw = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
    } catch (error) {
      return { error: `the arguments of ${call.name} are not valid JSON (${error instanceof Error ? error.message : String(error)}); send one JSON object`, summary };
    }
    const parsed = tool.args.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
      return { error: `bad arguments for ${call.name}: ${issues}`, summary };
    }
    return { tool, args: parsed.data, summary: shortText(tool.summary(parsed.data)) };
  };

  return {
    root,
    specs: [...tools.values()].map((t) => t.spec),
    has: (name) => tools.has(name),
    summarize: (call) => prepare(call).summary,
    async run(call, signal) {
      const prepared = prepare(call);
      const fail = (message: string): ToolOutcome => ({ ...toolFailure(message), tool: call.name, summary: prepared.summary });
      if ('error' in prepared) return fail(prepared.error);
      try {
        const result = await prepared.tool.run(prepared.args, { root, budgetRoot, limits, ...(signal ? { signal } : {}) });
        return { ...result, content: capText(result.content, limits.maxResultChars), tool: call.name, summary: prepared.summary };
      } catch (error) {
        if (error instanceof ToolError) return fail(error.message);
        const code = (error as NodeJS.ErrnoException | null)?.code;
        return fail(`${call.name} failed: ${code ?? (error instanceof Error ? error.message : String(error))}`);
      }
    },
  };
}
