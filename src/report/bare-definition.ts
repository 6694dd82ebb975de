import { buildChart } from '../engine/chart/chart.js';
import type { MachineDefinition } from '../engine/definition.js';
import type { SessionDocument } from '../store/session-file.js';

/** A stand-in definition when a session's team cannot be loaded: states and ids print as stored. */
export function bareDefinition(doc: SessionDocument): MachineDefinition {
  return {
    name: doc.team.name,
    kind: 'team',
    chart: buildChart({ id: doc.team.name, kind: 'atomic' }),
    agents: [],
    agentIndex: new Map(),
    userPath: '',
    initial: '',
  } as unknown as MachineDefinition;
}
