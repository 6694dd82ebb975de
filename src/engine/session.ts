import type { Directive } from '../directive/schema.js';
import type { Decision, Proposal } from '../arbiter/proposal.js';
import type { Inbox } from './inbox.js';
import type { MachineDefinition, Mode } from './definition.js';

/** One persona call the runtime must make (or is making). */
export interface AgentCall {
  turnId: string;
  persona: string;
  path: string;
  attempt: number;
  inbox: Inbox;
  /** Validation error sent back in the repair round. */
  repair?: string;
  /** The persona's words from the first attempt, kept across the repair round. */
  priorText?: string;
}

/** An entry of the session transcript. */
export interface TranscriptEntry {
  seq: number;
  kind: 'agent' | 'user' | 'note';
  turn: number;
  persona?: string;
  path?: string;
  text: string;
  directive?: Directive;
  status?: 'ok' | 'aborted' | 'invalid';
  flags?: string[];
}

/** An approval or rejection in the approval chain. */
export interface ApprovalRecord {
  turn: number;
  by: string;
  of: string;
  status: 'APPROVED' | 'REQUEST_REWORK';
  reason?: string;
}

/** A state change, as recorded in the session. */
export interface TransitionRecord {
  turn: number;
  from: string;
  to: string;
  kind: 'agent' | 'rework' | 'rule' | 'detour_return' | 'pipeline' | 'user' | 'consult' | 'system';
  reason: string;
  /** The arbitration behind it, compact: "Lead Engineer 0.69 ✓, CEO 0.71, ...". */
  arbitration?: string;
}

/** A detour in progress: after `target` answers, control returns to `returnTo`. */
export interface DetourFrame {
  target: string;
  returnTo: string;
  reason: string;
}

/** A planned move to a persona or to the user, applied now or held at an approval gate. */
export interface Move {
  to: string | 'user';
  kind: TransitionRecord['kind'];
  reason: string;
  inbox?: Inbox;
  pushHistory?: boolean;
  popHistory?: boolean;
  detour?: DetourFrame;
  endDetour?: boolean;
  arbitration?: string;
  /** Simple mode: the pipeline stage this move enters (set only when the move really happens). */
  pipelineIndex?: number;
}

/** Why the session waits for the user, and what `!continue` would do. */
export interface Awaiting {
  reason: string;
  code: 'respond_to_user' | 'complete' | 'gate' | 'limit' | 'failure' | 'invalid_directive' | 'no_route' | 'consult' | 'pipeline_complete' | 'start';
  resume: Move | AgentCall | null;
}

/** The whole engine state of a session; plain data, serialisable. */
export interface SessionState {
  version: 1;
  id: string;
  team: string;
  brief: string;
  mode: Mode;
  status: 'idle' | 'running' | 'awaiting_user' | 'ended';
  active: string | null;
  turn: number;
  turnBudget: number;
  callSeq: number;
  seq: number;
  inFlight: AgentCall | null;
  pending: Move | null;
  awaiting: Awaiting | null;
  history: string[];
  detours: DetourFrame[];
  consultReturn: string | 'user' | null;
  /** The pause a consultation interrupted, restored when the answer comes (absent in older files). */
  consultPause?: { awaiting: Awaiting; pending: Move | null; active: string | null } | null;
  approvals: ApprovalRecord[];
  reworks: Record<string, number>;
  visits: Record<string, number>;
  transitions: TransitionRecord[];
  transcript: TranscriptEntry[];
  queue: (Proposal & { expires: number })[];
  rulesFired: Record<string, number>;
  lastDecision: Decision | null;
  pipelineIndex: number;
  /** Transitions before this index no longer count towards ping-pong detection. */
  loopFloor: number;
  endReason: string | null;
}

/** A fresh session, not yet started. */
export function createSession(def: MachineDefinition, options: { id: string; mode?: Mode }): SessionState {
  return {
    version: 1,
    id: options.id,
    team: def.name,
    brief: '',
    mode: options.mode ?? 'fsm',
    status: 'idle',
    active: null,
    turn: 0,
    turnBudget: def.limits.max_turns,
    callSeq: 0,
    seq: 0,
    inFlight: null,
    pending: null,
    awaiting: null,
    history: [],
    detours: [],
    consultReturn: null,
    approvals: [],
    reworks: {},
    visits: {},
    transitions: [],
    transcript: [],
    queue: [],
    rulesFired: {},
    lastDecision: null,
    pipelineIndex: 0,
    loopFloor: 0,
    endReason: null,
  };
}
