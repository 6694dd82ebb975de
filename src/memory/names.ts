import type { MachineDefinition } from '../engine/definition.js';
import type { NameOf } from './render.js';

// Built once per definition: prompt builders look a name up for every transcript entry.
const byDef = new WeakMap<MachineDefinition, Map<string, string>>();
const lookups = new WeakMap<MachineDefinition, Map<string, NameOf>>();

/** Persona id -> display name for a definition, built once per definition. */
export function nameIndex(def: MachineDefinition): Map<string, string> {
  let index = byDef.get(def);
  if (!index) {
    index = new Map(def.agents.map((a) => [a.id, a.name]));
    byDef.set(def, index);
  }
  return index;
}

/** A name lookup for a definition through a Map: `user` for "user", the id itself for an unknown persona. */
export function namesFor(def: MachineDefinition, user = 'User'): NameOf {
  let forDef = lookups.get(def);
  if (!forDef) {
    forDef = new Map();
    lookups.set(def, forDef);
  }
  let lookup = forDef.get(user);
  if (!lookup) {
    const index = nameIndex(def);
    lookup = (id) => (id === 'user' ? user : (index.get(id) ?? id));
    forDef.set(user, lookup);
  }
  return lookup;
}
