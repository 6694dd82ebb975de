import { agentById, type MachineDefinition } from '../engine/definition.js';
import type { SessionState } from '../engine/session.js';
import { displayName, formatPath } from '../report/names.js';

/** Where the team is and where it goes next, ready to print. */
export interface Situation {
  /** The persona holding (or last holding) the turn, as `MAJOR › Name`. */
  current: string;
  /** The transition held at an approval gate, or the predicted next state. */
  next: { kind: 'pending' | 'next'; to: string } | null;
  /** One line on what happens now: answering, waiting for you (and why), ended. */
  status: string;
  /** Simple mode: the pipeline stage the session is at, e.g. "Planning (2/3)". */
  stage?: string;
}

function pathOfId(def: MachineDefinition, id: string | 'user' | null | undefined): string | null {
  if (!id) return null;
  if (id === 'user') return formatPath(def, def.userPath);
  const agent = agentById(def, id);
  return agent ? formatPath(def, agent.path) : null;
}

/** The next state as far as it is known before the active persona answers. */
function predicted(def: MachineDefinition, s: SessionState): string | null {
  if (s.status === 'idle') {
    const routing = def.team?.routing[s.mode];
    return pathOfId(def, routing?.kind === 'pipeline' ? routing.stages[0]?.persona : def.initial);
  }
  if (s.status !== 'running') return null;
  const r = s.routing;
  if (!r) return null;
  if (s.inFlight?.inbox.kind === 'consult' && r.consultReturn) return pathOfId(def, r.consultReturn);
  const detour = r.detours[r.detours.length - 1];
  if (detour && detour.target === s.active) return pathOfId(def, detour.returnTo);
  const routing = def.team?.routing[s.mode];
  if (routing?.kind === 'pipeline') {
    const stage = routing.stages[r.pipelineIndex + 1];
    return stage ? pathOfId(def, stage.persona) : formatPath(def, def.userPath);
  }
  // In the state machine the next state is the arbiter's to choose once the persona answers: no guess.
  return null;
}

function stageOf(def: MachineDefinition, s: SessionState): string | undefined {
  const routing = def.team?.routing[s.mode];
  if (routing?.kind !== 'pipeline' || !s.routing) return undefined;
  const at = s.routing.pipelineIndex;
  const stage = routing.stages[at];
  // Switched to simple away from every stage: the pipeline starts at its first stage when the persona hands on.
  return stage ? `${stage.stage} (${at + 1}/${routing.stages.length})` : `off the pipeline (${routing.stages[0]?.stage ?? 'none'} next)`;
}

/** A workflow's situation: the state path through its sub-workflows, and what runs now (an agent, branches, a debate, code). */
function workflowSituation(def: MachineDefinition, s: SessionState): Situation {
  const frames = s.workflow?.frames ?? [];
  const frame = frames.at(-1);
  const current = [def.name, ...frames.map((f) => f.state)].join(' › ');
  let status: string;
  if (s.status === 'idle') status = 'waiting for the workflow input';
  else if (s.status === 'ended') status = `ended: ${s.endReason ?? 'ended'}`;
  else if (s.status === 'awaiting_user') status = `waiting for you: ${s.awaiting?.reason ?? ''}`;
  else if (frame?.branches) {
    const all = Object.entries(frame.branches);
    status = `branches ${all.map(([id, b]) => `${id} ${b.status === 'running' ? '▸' : b.status === 'done' ? '✓' : '✗'}`).join(' · ')}`;
  } else if (frame?.debate)
    status = `debate round ${frame.debate.round + 1}${frame.debate.synthesising ? ' (synthesising)' : ''}: ${s.inFlight ? displayName(def, s.inFlight.persona) : 'a reviewer'} is answering`;
  else if (s.inFlight) status = `${displayName(def, s.inFlight.persona)} is answering`;
  else status = s.workflow?.evaluating ? `running ${s.workflow.evaluating.purpose} code` : 'working';
  return { current, next: null, status };
}

/** Describes the session for the state line and `!status`. */
export function situation(def: MachineDefinition, s: SessionState): Situation {
  if (def.kind === 'workflow') return workflowSituation(def, s);
  const current = s.status === 'idle' ? formatPath(def, def.userPath) : (pathOfId(def, s.active) ?? formatPath(def, def.userPath));
  const pendingTo = s.pending && s.pending.to !== 'user' ? pathOfId(def, s.pending.to) : null;
  const guess = pendingTo ? null : predicted(def, s);
  const next = pendingTo ? { kind: 'pending' as const, to: pendingTo } : guess ? { kind: 'next' as const, to: guess } : null;
  const who = pathOfId(def, s.active)?.split(' › ')[1] ?? 'the team';
  const status =
    s.status === 'idle'
      ? 'waiting for your brief'
      : s.status === 'running'
        ? `${who} is answering`
        : s.status === 'ended'
          ? `session ended: ${s.endReason ?? 'ended'}`
          : `waiting for you: ${s.awaiting?.reason ?? ''}`;
  const stage = stageOf(def, s);
  return { current, next, status, ...(stage ? { stage } : {}) };
}

/** The one-line form: `STRATEGIC › CEO -> pending: STRATEGIC › CFO`. */
export function situationLine(sit: Situation): string {
  return sit.next ? `${sit.current} -> ${sit.next.kind}: ${sit.next.to}` : sit.current;
}
