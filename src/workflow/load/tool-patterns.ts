/**
 * Whether a tool name matches a SynthDev tool pattern: the exact name, a `*` wildcard (`"*_file"`), or a
 * regular expression between slashes (`"/^(read|write)_/"`); an invalid pattern matches only itself.
 */
export function matchesToolPattern(tool: string, pattern: string): boolean {
  if (tool === pattern) return true;
  if (pattern.startsWith('/') && pattern.lastIndexOf('/') > 0) {
    const end = pattern.lastIndexOf('/');
    try {
      return new RegExp(pattern.slice(1, end), pattern.slice(end + 1)).test(tool);
    } catch {
      return false;
    }
  }
  if (!pattern.includes('*')) return false;
  const source = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${source}$`).test(tool);
}

/** A role's tool filter: with includedTools only those (patterns), else all but excludedTools (patterns). */
export function toolAllowed(tool: string, included: readonly string[] | undefined, excluded: readonly string[] | undefined): boolean {
  if (included !== undefined) return included.some((p) => matchesToolPattern(tool, p));
  return !(excluded ?? []).some((p) => matchesToolPattern(tool, p));
}
