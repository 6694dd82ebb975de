/** The slice of a persona the arbiter and command parser need to resolve names. */
export interface NamedPersona {
  id: string;
  name: string;
}

function squash(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** A roster's personas by squashed name, and by the exact ids and names (the usual case: no squashing). */
interface Index {
  squashed: Map<string, NamedPersona>;
  exact: Map<string, NamedPersona | undefined>;
}

const indexes = new WeakMap<readonly NamedPersona[], Index>();

function indexOf(personas: readonly NamedPersona[]): Index {
  let index = indexes.get(personas);
  if (!index) {
    const squashed = new Map<string, NamedPersona>();
    // Ids win over display names when both squash to the same key.
    for (const p of personas) if (!squashed.has(squash(p.name))) squashed.set(squash(p.name), p);
    for (const p of personas) squashed.set(squash(p.id), p);
    const exact = new Map<string, NamedPersona | undefined>();
    for (const p of personas) for (const name of [p.id, p.name]) exact.set(name, squash(name) === '' ? undefined : squashed.get(squash(name)));
    index = { squashed, exact };
    indexes.set(personas, index);
  }
  return index;
}

/** Resolves a persona by id or display name, case-insensitive, ignoring spaces and punctuation. */
export function resolvePersona<P extends NamedPersona>(personas: readonly P[], name: string): P | undefined {
  const index = indexOf(personas);
  if (index.exact.has(name)) return index.exact.get(name) as P | undefined;
  const wanted = squash(name);
  if (wanted === '') return undefined;
  return index.squashed.get(wanted) as P | undefined;
}
