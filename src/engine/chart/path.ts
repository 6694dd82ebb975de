/** A state's place in the chart: the ids from the root's child down to the state, e.g. ['CREATIVE', 'game_designer']. */
export type StatePath = readonly string[];

/** The key a path is stored and printed under (`CREATIVE.game_designer`); never split back: look it up in the chart. */
export function pathKey(path: StatePath): string {
  return path.join('.');
}

/** The path of the parent state (the root's children have the empty path as parent). */
export function parentPath(path: StatePath): StatePath {
  return path.slice(0, -1);
}

/** True when `ancestor` is `path` itself or one of its ancestors. */
export function isWithin(path: StatePath, ancestor: StatePath): boolean {
  if (ancestor.length > path.length) return false;
  for (let i = 0; i < ancestor.length; i++) if (path[i] !== ancestor[i]) return false;
  return true;
}

/** The deepest path both paths lie within (the empty path when they share only the root). */
export function commonAncestor(a: StatePath, b: StatePath): StatePath {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return a.slice(0, n);
}

/** Parses a path written in configuration (`MAJOR.persona_id`); only config files are parsed this way. */
export function parsePathText(text: string): StatePath {
  return text.split('.').filter((part) => part !== '');
}
