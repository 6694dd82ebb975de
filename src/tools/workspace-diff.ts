import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from 'diff';
import type { Changes } from '../engine/agent-reply.js';
import type { Snapshot, SnapshotEntry } from './workspace-snapshot.js';

/** How large a rendered diff may get. */
export interface DiffLimits {
  /** Characters of the whole diff; the files past it are named, not shown. */
  maxChars: number;
  /** Largest edit the diff algorithm works out per file (bounds its time); beyond it the file is said to differ. */
  maxEditLength: number;
}

/** The default diff caps. */
export const DEFAULT_DIFF_LIMITS: DiffLimits = { maxChars: 200_000, maxEditLength: 20_000 };

type Status = Changes['files'][number]['status'];

/** The unified diff of one file (rendered by the `diff` package), or a line saying it differs when it has no text to compare. */
function fileDiff(path: string, status: Status, before: SnapshotEntry | undefined, after: SnapshotEntry | undefined, limits: DiffLimits): string {
  const from = status === 'added' ? '/dev/null' : `a/${path}`;
  const to = status === 'deleted' ? '/dev/null' : `b/${path}`;
  const oldText = status === 'added' ? '' : before?.text;
  const newText = status === 'deleted' ? '' : after?.text;
  if (oldText === undefined || newText === undefined) return `Binary or large file ${path} ${status} (not shown)\n`;
  const patch = structuredPatch(from, to, oldText, newText, undefined, undefined, { context: 3, maxEditLength: limits.maxEditLength });
  if (!patch) return `--- ${from}\n+++ ${to}\n(${path} changed too much to show as a diff)\n`;
  return formatPatch(patch, FILE_HEADERS_ONLY);
}

/** What changed between two snapshots: each file's status (sorted by path) and the unified diff, capped. Pure. */
export function diffSnapshots(before: Snapshot, after: Snapshot, limits: DiffLimits = DEFAULT_DIFF_LIMITS): Changes {
  const paths = [...new Set([...Object.keys(before.files), ...Object.keys(after.files)])].sort();
  const files: Changes['files'] = [];
  for (const path of paths) {
    const a = before.files[path];
    const b = after.files[path];
    if (a && b && a.hash === b.hash) continue;
    files.push({ path, status: !a ? 'added' : !b ? 'deleted' : 'modified' });
  }
  let diff = '';
  for (const [i, { path, status }] of files.entries()) {
    const piece = fileDiff(path, status, before.files[path], after.files[path], limits);
    if (diff.length + piece.length > limits.maxChars) {
      const rest = files.slice(i).map((f) => `${f.status} ${f.path}`);
      diff += `[diff truncated at ${limits.maxChars} characters; not shown: ${rest.join(', ')}]\n`;
      break;
    }
    diff += piece;
  }
  const notes = [before.truncated || after.truncated ? '[the workspace has more files than a snapshot holds; changes past them are not listed]\n' : ''];
  return { files, diff: diff + notes.join('') };
}
