/** The slice of a persona the arbiter and command parser need to resolve names. */
export interface NamedPersona {
  id: string;
  name: string;
}

function squash(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Resolves a persona by id or display name, case-insensitive, ignoring spaces and punctuation. */
export function resolvePersona<P extends NamedPersona>(personas: readonly P[], name: string): P | undefined {
  const wanted = squash(name);
  if (wanted === '') return undefined;
  return personas.find((p) => squash(p.id) === wanted || squash(p.name) === wanted);
}
