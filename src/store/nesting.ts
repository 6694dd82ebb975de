/** How deeply a stored file may nest objects and arrays; far beyond what troupe writes, far below what recursion survives. */
export const MAX_NESTING = 512;

/**
 * The nesting depth of plain data (a scalar is 0, `[]` is 1), counted with an explicit stack so a
 * hostile file cannot overflow the call stack; stops counting once it passes `limit`.
 */
export function nestingDepth(value: unknown, limit = MAX_NESTING): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, here]);
    }
  }
  return deepest;
}

/** True when plain data nests deeper than `limit`. */
export function tooDeep(value: unknown, limit = MAX_NESTING): boolean {
  return nestingDepth(value, limit) > limit;
}
