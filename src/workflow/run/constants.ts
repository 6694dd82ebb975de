/** The tool a role uses to ask the user (seed 003); its answer comes back as the tool's result. */
export const ASK_USER_TOOL = 'request_users_input';
/** How deep sub-workflows may nest. */
export const MAX_DEPTH = 8;
/** Most branches one parallel state (or reviewers one debate) runs at once: each is a model call in flight, and a branch with `workspace` a copy of the workspace's start. */
export const MAX_BRANCHES = 32;
/** Targets that end a run without being states (seed 000's engine stops on `stop`). */
export const ENDS: ReadonlySet<string> = new Set(['stop', 'end']);
/** The id of the final state a compiled sub-workflow ends in. */
export const SUB_DONE = '__done';

/** A value as text: strings as they are, nothing as empty, the rest as JSON. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value);
}
