import type React from 'react';
import { Text, Transform, type TextProps } from 'ink';

/** Props of a volatile line: its text, the columns it takes, and the style it is drawn in. */
export interface VolatileProps extends Omit<TextProps, 'children' | 'wrap'> {
  text: string;
  /** Columns it takes (default: one per character, right for ASCII, Braille and punctuation like `·`). */
  width?: number;
}

/**
 * Text that changes from frame to frame (streamed words, a spinner, a clock), drawn without Ink keeping it.
 * Ink caches the size and the wrapping of every distinct text it lays out, for the life of the process, so a
 * streamed answer would leave every partial line behind and a clock every second. This is laid out as
 * blanks of its width (one cached text per width) and written in their place, in their style, when drawn.
 * It must be a child of a Box, not of a Text (a Text would lay out the words themselves).
 */
export function Volatile({ text, width, ...style }: VolatileProps): React.JSX.Element {
  const blanks = ' '.repeat(Math.max(0, width ?? [...text].length));
  return (
    <Transform transform={(drawn) => drawn.replace(/ +…?/, text)}>
      <Text {...style} wrap="truncate-end">{blanks}</Text>
    </Transform>
  );
}
