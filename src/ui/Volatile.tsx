import type React from 'react';
import { Text, Transform, type TextProps } from 'ink';
import { columnsOf, fitColumns } from './columns.js';

/** Props of a volatile line: its text, the columns it takes, and the style it is drawn in. */
export interface VolatileProps extends Omit<TextProps, 'children' | 'wrap'> {
  text: string;
  /** Columns it asks for (default: the columns the text takes). */
  width?: number;
}

// The blanks as Ink laid them out: a run of spaces, ending in `…` when the layout gave fewer columns than asked.
const LAID_OUT = / +…?|…/;

/**
 * Text that changes from frame to frame (streamed words, a spinner, a clock), drawn without Ink keeping it.
 * Ink caches the size and the wrapping of every distinct text it lays out, for the life of the process, so a
 * streamed answer would leave every partial line behind and a clock every second. This is laid out as
 * blanks of its width (one cached text per width) and written in their place, in their style, when drawn —
 * cut to the columns the layout gave the blanks: a row that shrinks them must not get the whole text back,
 * or the line outgrows the terminal, wraps, and Ink erases one row too few on the next frame.
 * It must be a child of a Box, not of a Text (a Text would lay out the words themselves).
 */
export function Volatile({ text, width, ...style }: VolatileProps): React.JSX.Element {
  const blanks = ' '.repeat(Math.max(0, width ?? columnsOf(text)));
  return (
    <Transform transform={(drawn) => drawn.replace(LAID_OUT, (laid) => fitColumns(text, laid.length))}>
      <Text {...style} wrap="truncate-end">
        {blanks}
      </Text>
    </Transform>
  );
}
