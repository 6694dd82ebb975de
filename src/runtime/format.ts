import type { MachineDefinition } from '../engine/definition.js';

/** Renders a state path as `MAJOR › Display Name`. */
export function formatPath(def: MachineDefinition, path: string): string {
  const [major, id] = path.split('.');
  if (path === def.userPath) return `${major} › You`;
  const persona = def.agents.find((a) => a.id === id);
  return `${major} › ${persona?.name ?? id ?? path}`;
}

/** Display name for a persona id (or "You" for the user). */
export function displayName(def: MachineDefinition, id: string): string {
  if (id === 'user') return 'You';
  return def.agents.find((a) => a.id === id)?.name ?? id;
}
