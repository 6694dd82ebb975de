import type { MachineDefinition } from '../engine/definition.js';
import { allVisits, type SessionState } from '../engine/session.js';
import type { OpenTeam } from '../team/open-team.js';
import type { TroupeSession } from '../session/troupe-session.js';
import { restoreMeter } from '../session/restore-meter.js';
import { isDemoLabel } from '../llm/demo-model.js';
import { processRedactor, redactDeep } from '../llm/redact.js';
import { statusFactsOf, statusWords, type StatusHolder } from '../report/status-words.js';
import { eventsOf, type ReadSession } from '../store/store.js';
import { usageView } from '../usage/session-usage.js';
import { usageState, type UsageMeter, type UsageState } from '../usage/usage-meter.js';
import { machineAt, sessionAtStep } from '../session/at-step.js';
import { storedAtEnd } from '../session/stored-tail.js';
import { storedMachine } from '../store/stored-machine.js';

/** What the API's view of a session takes besides the engine state: the backend knows these. */
export interface ViewFacts {
  kind: string;
  /** Whether the session is live on the server (it takes input without being reopened). */
  hosted: boolean;
  /** Who runs it, for its status in words (default: 'live' when hosted, else nobody). */
  holder?: StatusHolder;
  lastEventSeq: number;
  /** The meter's totals (null: nothing metered yet). */
  usage: UsageState | null;
  /** Its calls cost nothing (the demo model). */
  free?: boolean;
  /** The session it was forked from, and at which step. */
  forkedFrom?: { id: string; step: number } | null;
}

/** The engine state's fields the view shows. */
export type ViewedSession = Pick<SessionState, 'id' | 'definition' | 'status' | 'brief' | 'turn' | 'configuration' | 'active' | 'awaiting' | 'endReason'>;

/**
 * A session as the API shows it, from its engine state and usage totals (both backends answer with this shape),
 * redacted as the SSE frames are: a live session's state is what the user and the model wrote, not yet screened by the store.
 */
export function viewOf(s: ViewedSession & Partial<Pick<SessionState, 'visits' | 'recentVisits' | 'workflow'>>, facts: ViewFacts): Record<string, unknown> {
  const branches = s.workflow?.frames.at(-1)?.branches ?? {};
  return redactDeep(
    {
      id: s.id,
      definition: s.definition,
      kind: facts.kind,
      status: s.status,
      statusText: statusWords(statusFactsOf(s), facts.holder ?? (facts.hosted ? 'live' : null)),
      hosted: facts.hosted,
      brief: s.brief,
      turn: s.turn,
      state: s.configuration,
      // Who has the turn: nobody once the session is over.
      active: s.status === 'ended' ? null : s.active,
      awaiting: s.awaiting ? { code: s.awaiting.code, reason: s.awaiting.reason } : null,
      endReason: s.endReason,
      lastEventSeq: facts.lastEventSeq,
      usage: usageView(facts.usage, facts.free ?? false),
      // The Restate head keeps no visits: its view has none.
      visits: s.visits ? allVisits({ visits: s.visits, recentVisits: s.recentVisits ?? [] }) : {},
      branches: Object.entries(branches).map(([id, b]) => ({ id, agent: b.agent, status: b.status, ...(b.error ? { error: b.error } : {}) })),
      forkedFrom: facts.forkedFrom ?? null,
    },
    processRedactor(),
  );
}

/**
 * A session as the embedded backend shows it: from the running session (its meter), or stored: from its state
 * as the journal ends (the checkpoint is a cache: fold the lines after it, see foldJournal).
 */
export function sessionView(
  input: { session: TroupeSession } | { doc: ReadSession['doc']; lastSeq: number; usage: UsageState | null; snapshot: SessionState; holder: StatusHolder },
): Record<string, unknown> {
  if ('session' in input) {
    const { session } = input;
    const usage = session.usage();
    return viewOf(session.getSnapshot(), { kind: session.def.kind, hosted: true, lastEventSeq: session.recent().at(-1)?.seq ?? 0, usage, free: usage.free, forkedFrom: session.forkedFrom });
  }
  return viewOf(input.snapshot, {
    kind: input.doc.workflow ? 'workflow' : 'team',
    hosted: false,
    holder: input.holder,
    lastEventSeq: input.lastSeq,
    usage: input.usage,
    free: isDemoLabel(input.doc.model),
    forkedFrom: input.doc.forkedFrom ?? null,
  });
}

/** A stored session's usage totals, as reopening it would restore them: the checkpoint's, plus the journal's after it. */
export async function storedUsage(read: ReadSession, meter: UsageMeter): Promise<UsageState> {
  const tail = eventsOf(read.records.slice(read.doc.checkpoint.records));
  await restoreMeter(meter, { saved: read.doc.checkpoint.usage, tail, all: async () => read.events, location: read.doc.id });
  return usageState(meter);
}

/** The machine a stored session runs when the server opens it again: its workflow's plan (with its own turn limit), else the server's team. */
export function reopenedMachine(doc: ReadSession['doc'], team: OpenTeam): MachineDefinition {
  return (doc.workflow?.plan ? storedMachine(doc) : null) ?? team.def;
}

/**
 * A stored session as the server shows it, at its journal's end or after its first `step` lines (see sessionAt, as
 * show and the listing read it): the machine its journal records there (naming its personas and states as it ran)
 * and its state there; a journal from before machine lines runs reopenedMachine.
 */
export function storedSession(read: Pick<ReadSession, 'doc' | 'records'>, team: OpenTeam, step?: number): { def: MachineDefinition; state: SessionState } {
  const before = () => reopenedMachine(read.doc, team);
  return step !== undefined ? sessionAtStep(read, before, step) : storedAtEnd(read, before);
}

/** The definition a stored session's journal records last, for naming things in its events (see storedSession; no step is replayed). */
export function storedDefinition(read: Pick<ReadSession, 'doc' | 'records'>, team: OpenTeam): MachineDefinition {
  return machineAt(read, () => reopenedMachine(read.doc, team));
}
