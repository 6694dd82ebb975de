import type { MachineDefinition } from '../engine/definition.js';

/** Renders the team as a Mermaid state diagram: majors as composite states, handoff_to as edges. */
export function toMermaid(def: MachineDefinition): string {
  const lines = ['stateDiagram-v2', `  [*] --> ${def.initial}`];
  for (const major of def.team?.majors ?? []) {
    lines.push(`  state ${major.id} {`);
    if (major.kind === 'user') lines.push(`    user: You`);
    for (const id of major.children) {
      const a = def.agentIndex.get(id);
      lines.push(`    ${id}: ${a?.name ?? id}${major.lead === id ? ' (lead)' : ''}`);
    }
    lines.push('  }');
  }
  for (const a of def.agents) {
    // The arbiter drops a proposal to oneself, so no self-edge is drawn (a handoff_to naming its own major includes it).
    const targets = (a.allowed ? [...a.allowed] : def.agents.map((x) => x.id)).filter((x) => x !== a.id);
    for (const t of targets) lines.push(`  ${a.id} --> ${t}`);
  }
  for (const r of def.team?.rules ?? []) lines.push(`  note right of ${r.owner}: rule ${r.id} (${r.detour ? 'detour' : 'handoff'})`);
  return lines.join('\n');
}
