/** The slice of a persona the arbiter and command parser need to resolve names. */
export interface NamedPersona {
  id: string;
  name: string;
}

function squash(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]/g, '');
}

const indexes = new WeakMap<readonly NamedPersona[], Map<string, NamedPersona>>();

function indexOf(personas: readonly NamedPersona[]): Map<string, NamedPersona> {
  let index = indexes.get(personas);
  if (!index) {
    index = new Map();
    // Ids win over display names when both squash to the same key.
    for (const p of personas) if (!index.has(squash(p.name))) index.set(squash(p.name), p);
    for (const p of personas) index.set(squash(p.id), p);
    indexes.set(personas, index);
  }
  return index;
}

/** Resolves a persona by id or display name, case-insensitive, ignoring spaces and punctuation. */
export function resolvePersona<P extends NamedPersona>(personas: readonly P[], name: string): P | undefined {
  const wanted = squash(name);
  if (wanted === '') return undefined;
  return indexOf(personas).get(wanted) as P | undefined;
}
