/** How deep workflow data may nest: the engine, the journal and the UI walk it recursively. */
export const MAX_JSON_DEPTH = 100;

/** How deeply a JSON text nests arrays and objects (brackets inside strings do not count); linear, never throws. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i += 1; // backslash: the next character is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) deepest = Math.max(deepest, ++depth);
    else if (c === 125 || c === 93) depth -= 1;
  }
  return deepest;
}
