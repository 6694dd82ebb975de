import type { Changes } from '../../engine/agent-reply.js';

/** One implementer's result as reviewers see it (the fields of a workflow branch, plus its id). */
export interface ImplementationForReview {
  /** The branch id, e.g. "agent1". */
  id: string;
  /** The agent (role or persona) that did the work. */
  agent?: string;
  /** The implementer's final message: its own summary of the work. */
  text?: string;
  changes?: Changes;
  /** Why the branch failed, when it did. */
  error?: string;
}

/** A code fence longer than any run of backticks in the text, so a diff holding ``` cannot close it early. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(Math.max(3, longest + 1));
}

/** One implementation's section: heading, summary, changed files, diff. */
function section(impl: ImplementationForReview, index: number, count: number): string {
  const who = impl.agent && impl.agent !== impl.id ? `${impl.id} (${impl.agent})` : impl.id;
  const lines = [`## Implementation ${index + 1} of ${count}: ${who}`, ''];
  if (impl.error) lines.push(`This implementation failed: ${impl.error}`, '');
  lines.push('### Summary', '', impl.text?.trim() || '(no summary given)', '');
  const files = impl.changes?.files ?? [];
  if (!impl.changes) {
    lines.push('### Changes', '', '(no workspace changes recorded)', '');
    return lines.join('\n');
  }
  lines.push(`### Files changed (${files.length})`, '');
  if (files.length === 0) lines.push('(no files changed)', '');
  else lines.push(...files.map((f) => `- ${f.status} ${f.path}`), '');
  if (impl.changes.diff.trim() !== '') {
    const fence = fenceFor(impl.changes.diff);
    lines.push('### Diff', '', `${fence}diff`, impl.changes.diff.replace(/\n$/, ''), fence, '');
  }
  return lines.join('\n');
}

/**
 * The implementations of a fan-out, rendered for reviewers (seed 002's formatImplementationsForReview):
 * per implementer its summary, the files it changed and the unified diff, in the order given.
 */
export function formatImplementationsForReview(implementations: readonly ImplementationForReview[]): string {
  if (implementations.length === 0) return '(no implementations to review)';
  return `${implementations
    .map((impl, i) => section(impl, i, implementations.length))
    .join('\n')
    .trimEnd()}\n`;
}
