import { UserError } from '../errors.js';

/** Caps that keep one tool call small, bounded in time and safe for the model's context. */
export interface ToolLimits {
  /** Largest file read_file, edit_file and search_files open, and the most bytes write_file writes. */
  maxFileBytes: number;
  /** Most characters one tool result hands back to the model (read_file pages past it). */
  maxResultChars: number;
  /** Most entries list_files shows. */
  maxListEntries: number;
  /** Most matching lines search_files shows. */
  maxSearchMatches: number;
  /** Most bytes of file text one search looks through. */
  maxSearchBytes: number;
  /** Longest a regex search may run before it is stopped (a pattern that backtracks without end). */
  searchTimeoutMs: number;
  /** Longest a command may run; then its whole process group is killed. */
  commandTimeoutMs: number;
  /** Most bytes of a command's output (stdout and stderr together) kept. */
  maxCommandOutputBytes: number;
  /** Most memory (heap and private writable mappings, RLIMIT_DATA) each process of a command may hold. */
  commandMemoryBytes: number;
  /** Largest file a command may write (RLIMIT_FSIZE): past it the write fails. */
  commandFileBytes: number;
  /** Most memory a command's processes hold together (a memory cgroup, where troupe may make one; TROUPE_COMMAND_MAX_MEMORY_BYTES; see jail-cgroup.ts). */
  commandTotalMemoryBytes: number;
  /** Most processes and threads a command may have at once (RLIMIT_NPROC in the jail's user namespace; the kernel does not hold root to it). */
  commandProcesses: number;
  /** Most bytes one workspace holds on disk: a file tool's write that would pass it is refused, and so is a command once a command has passed it (TROUPE_WORKSPACE_MAX_BYTES; see workspace-budget.ts). */
  maxWorkspaceBytes: number;
  /** Most files, folders and links one workspace holds, under the same rule. */
  maxWorkspaceEntries: number;
}

/** What one workspace may hold unless TROUPE_WORKSPACE_MAX_BYTES says otherwise: 4 GB (room for a copy of the project at its 2 GB bound and the agents' work). */
export const DEFAULT_WORKSPACE_MAX_BYTES = 4_000_000_000;

/** The setting that bounds the memory a command's processes hold together. */
export const COMMAND_MEMORY_SETTING = 'TROUPE_COMMAND_MAX_MEMORY_BYTES';

/** What a command's processes may hold together unless TROUPE_COMMAND_MAX_MEMORY_BYTES says otherwise: 4 GiB, one process's RLIMIT_DATA. */
export const DEFAULT_COMMAND_TOTAL_MEMORY_BYTES = 4 * 1024 ** 3;

/** A byte-count setting from the environment (`name`), `fallback` when unset; a value that is not a positive whole number is refused in one line. */
export function byteSetting(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw new UserError(`${name} must be a positive whole number of bytes, got "${raw}" — e.g. ${fallback} (the default)`);
  return n;
}

/** The default caps. */
export const DEFAULT_TOOL_LIMITS: ToolLimits = {
  maxFileBytes: 1_000_000,
  maxResultChars: 60_000,
  maxListEntries: 1_000,
  maxSearchMatches: 200,
  maxSearchBytes: 20_000_000,
  searchTimeoutMs: 2_000,
  commandTimeoutMs: 120_000,
  maxCommandOutputBytes: 60_000,
  commandMemoryBytes: 4 * 1024 ** 3,
  commandTotalMemoryBytes: DEFAULT_COMMAND_TOTAL_MEMORY_BYTES,
  commandFileBytes: 1024 ** 3,
  commandProcesses: 4096,
  maxWorkspaceBytes: DEFAULT_WORKSPACE_MAX_BYTES,
  maxWorkspaceEntries: 1_000_000,
};

/** Bytes as a person reads them: 512 B, 12.3 KB, 4.0 MB, 2.0 GB, 1.1 TB. */
export function bytes(n: number): string {
  if (n < 1_000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1_000).toFixed(1)} KB`;
  if (n < 1_000_000_000) return `${(n / 1_000_000).toFixed(1)} MB`;
  if (n < 1_000_000_000_000) return `${(n / 1_000_000_000).toFixed(1)} GB`;
  return `${(n / 1_000_000_000_000).toFixed(1)} TB`;
}
