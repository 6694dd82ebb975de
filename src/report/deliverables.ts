import type { Changes } from '../engine/agent-reply.js';
import type { TroupeEvent } from '../engine/event-map.js';
import type { SessionState } from '../engine/session.js';
import type { SessionDocument, JournalRecord } from '../store/session-file.js';
import { checkEvents } from './checked-events.js';
import type { DisplayNames } from './display-items.js';

/** A workspace found on disk for a session (its record under `<session files>/workspaces/`). */
export interface WorkspaceOnDisk {
  name: string;
  dir: string;
}

/** What a persona (or a branch) said last. */
export interface FinalText {
  persona: string;
  name: string;
  branch?: string;
  turn: number;
  text: string;
}

/** A workspace an agent worked in: where it is, and the files it changed with their diff (as the agent's last answer reported them). */
export interface WorkspaceDeliverable {
  name: string;
  /** Where its files are, when it is still on disk. */
  dir: string | null;
  persona?: string;
  branch?: string;
  files: Changes['files'];
  diff: string;
}

/** The current document of what a session produced: the brief, the decisions, the output, the final texts, the workspaces. */
export interface Deliverables {
  id: string;
  kind: 'team' | 'workflow';
  definition: string;
  brief: string;
  status: string;
  endReason: string | null;
  createdAt: string;
  updatedAt: string;
  forkedFrom: { id: string; step: number } | null;
  decisions: {
    /** Key decisions the personas pinned. */
    pinned: { by: string; text: string }[];
    approvals: { turn: number; by: string; of: string; status: 'APPROVED' | 'REQUEST_REWORK'; reason?: string }[];
    verdicts: { state: string; round: number; reviewer: string; agree: boolean; approve: boolean; feedback: string }[];
    debates: { state: string; rounds: number; consensus: boolean; approve: boolean; synthesised: boolean }[];
  };
  /** The workflow's output (its `session_ended` output), or null. */
  output: unknown;
  finals: FinalText[];
  workspaces: WorkspaceDeliverable[];
}

/** What the document is made of: the stored session, its names, and its workspaces on disk. */
export interface DeliverableSources {
  doc: SessionDocument;
  events: readonly TroupeEvent[];
  records: readonly JournalRecord[];
  names: DisplayNames;
  /** The session's status now (a running session's snapshot may be ahead of its stored checkpoint). */
  status?: string;
  /** Its state as the journal ends (see stateAtJournalEnd; without it, the checkpoint's state is shown). */
  state?: SessionState;
  workspaces: readonly WorkspaceOnDisk[];
}

/** The workspaces' latest reported changes, by workspace name (a branch's, else its agent's), from the journal's agent answers. */
function reportedChanges(events: readonly TroupeEvent[], records: readonly JournalRecord[]): Map<string, { persona: string; branch?: string; changes: Changes }> {
  const turns = new Map<string, { persona: string; branch?: string }>();
  for (const e of events) if (e.type === 'agent_started') turns.set(e.turn_id, { persona: e.persona, ...(e.branch !== undefined ? { branch: e.branch } : {}) });
  const out = new Map<string, { persona: string; branch?: string; changes: Changes }>();
  for (const r of records) {
    const input = r.input;
    if (input?.type !== 'agent_replied' || !input.changes) continue;
    const who = turns.get(input.turnId);
    if (!who) continue;
    out.set(who.branch ?? who.persona, { ...who, changes: input.changes });
  }
  return out;
}

/** The last thing each persona (each branch) said. */
function finalTexts(events: readonly TroupeEvent[], names: DisplayNames): FinalText[] {
  const last = new Map<string, FinalText>();
  for (const e of events) {
    if (e.type !== 'agent_message') continue;
    const key = `${e.persona}\u0000${e.branch ?? ''}`;
    last.delete(key);
    last.set(key, { persona: e.persona, name: names.name(e.persona), ...(e.branch !== undefined ? { branch: e.branch } : {}), turn: e.turn, text: e.text });
  }
  return [...last.values()];
}

/** The deliverables document of a session (pure): read from its stored events and journal, and its workspaces found on disk. */
export function deliverablesOf(sources: DeliverableSources): Deliverables {
  // A hand-edited or damaged log: the malformed events are left out, as every report leaves them out.
  const s = { ...sources, events: checkEvents(sources.events).events };
  const decisions: Deliverables['decisions'] = { pinned: [], approvals: [], verdicts: [], debates: [] };
  let output: unknown = null;
  let turn = 0;
  let ended: string | null = null;
  for (const e of s.events) {
    if (e.type === 'agent_message') turn = e.turn;
    else if (e.type === 'directive') for (const text of e.directive.key_decisions ?? []) decisions.pinned.push({ by: s.names.name(e.persona), text });
    else if (e.type === 'approval') decisions.approvals.push({ turn: e.turn ?? turn, by: s.names.name(e.by), of: s.names.name(e.of), status: e.status, ...(e.reason ? { reason: e.reason } : {}) });
    else if (e.type === 'verdict') decisions.verdicts.push({ state: e.state, round: e.round, reviewer: s.names.name(e.reviewer), agree: e.agree, approve: e.approve, feedback: e.feedback });
    else if (e.type === 'debate_ended') decisions.debates.push({ state: e.state, rounds: e.rounds, consensus: e.consensus, approve: e.approve, synthesised: e.synthesised });
    else if (e.type === 'session_ended') {
      ended = e.reason;
      if (e.output !== undefined) output = e.output;
    }
  }
  const reported = reportedChanges(s.events, s.records);
  const onDisk = new Map(s.workspaces.map((w) => [w.name, w.dir]));
  const names = [...new Set([...reported.keys(), ...onDisk.keys()])].sort();
  const workspaces = names.map((name): WorkspaceDeliverable => {
    const r = reported.get(name);
    return {
      name,
      dir: onDisk.get(name) ?? null,
      ...(r ? { persona: r.persona, ...(r.branch !== undefined ? { branch: r.branch } : {}) } : {}),
      files: r?.changes.files ?? [],
      diff: r?.changes.diff ?? '',
    };
  });
  const snapshot = s.state ?? s.doc.checkpoint.snapshot;
  return {
    id: s.doc.id,
    kind: s.doc.workflow ? 'workflow' : 'team',
    definition: s.doc.workflow?.name ?? s.doc.team.name,
    brief: s.doc.brief || snapshot.brief,
    status: s.status ?? (ended !== null ? 'ended' : snapshot.status),
    endReason: ended ?? snapshot.endReason,
    createdAt: s.doc.createdAt,
    updatedAt: s.doc.updatedAt,
    forkedFrom: s.doc.forkedFrom ?? null,
    decisions,
    output,
    finals: finalTexts(s.events, s.names),
    workspaces,
  };
}
