import { useRef, useState } from 'react';
import { useInput } from 'ink';
import type { Completion } from '../commands/complete.js';
import { edit, EMPTY_EDITOR, type EditorState } from './line-editor.js';

/** Options of the line editor hook. */
export interface LineEditorOptions {
  onSubmit: (line: string) => void;
  onInterrupt: () => void;
  complete?: (line: string) => Completion;
  isActive?: boolean;
}

/**
 * A line editor over Ink's useInput. The state lives in a ref, not in React state, so keys that
 * arrive faster than a re-render never see a stale buffer; React state only triggers the redraw.
 */
export function useLineEditor(options: LineEditorOptions): EditorState {
  const state = useRef<EditorState>(EMPTY_EDITOR);
  const latest = useRef(options);
  latest.current = options;
  const [, redraw] = useState(0);
  useInput(
    (input, key) => {
      const result = edit(state.current, input, key, latest.current.complete);
      state.current = result.state;
      redraw((n) => n + 1);
      for (const line of result.submitted) latest.current.onSubmit(line);
      if (result.interrupt) latest.current.onInterrupt();
    },
    { isActive: options.isActive ?? true },
  );
  return state.current;
}
