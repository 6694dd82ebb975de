/** One line of a unified diff, with what it is (a header, a hunk, an added, removed or context line, a note). */
export interface DiffLine {
  kind: 'file' | 'hunk' | 'add' | 'del' | 'ctx' | 'note';
  text: string;
}

/** Splits a unified diff (as troupe's workspace diffs write it) into typed lines for display (pure). */
export function diffLines(diff: string): DiffLine[] {
  return diff
    .replace(/\n$/, '')
    .split('\n')
    .map((text): DiffLine => {
      if (text.startsWith('+++ ') || text.startsWith('--- ')) return { kind: 'file', text };
      if (text.startsWith('@@')) return { kind: 'hunk', text };
      if (text.startsWith('+')) return { kind: 'add', text };
      if (text.startsWith('-')) return { kind: 'del', text };
      if (text.startsWith(' ')) return { kind: 'ctx', text };
      return { kind: 'note', text };
    });
}
