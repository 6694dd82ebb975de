import { z } from 'zod';
import type { TroupeEvent } from '../engine/event-map.js';
import type { SessionState } from '../engine/session.js';

/** The session file format this build writes; bump it (and add a migration) when the layout changes. */
export const SESSION_SCHEMA_VERSION = 1;

const AgentCallSchema = z.looseObject({
  turnId: z.string(),
  persona: z.string(),
  path: z.string(),
  attempt: z.number().int(),
  inbox: z.looseObject({ kind: z.string() }),
});

const TranscriptEntrySchema = z.looseObject({
  seq: z.number().int(),
  kind: z.enum(['agent', 'user', 'note']),
  turn: z.number().int(),
  text: z.string(),
  persona: z.string().optional(),
  path: z.string().optional(),
  status: z.enum(['ok', 'aborted', 'invalid']).optional(),
  directive: z.looseObject({ transition: z.string(), next_agent: z.string().optional(), rework_reason: z.string().optional(), key_decisions: z.array(z.string()).optional() }).optional(),
  flags: z.array(z.string()).optional(),
});

const TransitionSchema = z.looseObject({ turn: z.number().int(), from: z.string(), to: z.string(), kind: z.string(), reason: z.string() });

const DetourSchema = z.looseObject({ target: z.string(), returnTo: z.string(), reason: z.string() });

// The engine snapshot: every field the engine reads is checked; nested records stay loose so an
// engine that adds a field does not make older troupe builds reject the file.
const SnapshotSchema = z.looseObject({
  version: z.literal(1),
  id: z.string(),
  team: z.string(),
  brief: z.string(),
  mode: z.enum(['fsm', 'simple']),
  status: z.enum(['idle', 'running', 'awaiting_user', 'ended']),
  active: z.string().nullable(),
  turn: z.number().int(),
  turnBudget: z.number().int(),
  callSeq: z.number().int(),
  seq: z.number().int(),
  inFlight: AgentCallSchema.nullable(),
  pending: z.looseObject({ to: z.string(), kind: z.string(), reason: z.string() }).nullable(),
  awaiting: z.looseObject({ reason: z.string(), code: z.string(), resume: z.looseObject({}).nullable() }).nullable(),
  history: z.array(z.string()),
  detours: z.array(DetourSchema),
  consultReturn: z.string().nullable(),
  approvals: z.array(z.looseObject({ turn: z.number().int(), by: z.string(), of: z.string(), status: z.enum(['APPROVED', 'REQUEST_REWORK']), reason: z.string().optional() })),
  reworks: z.record(z.string(), z.number()),
  visits: z.record(z.string(), z.number()),
  transitions: z.array(TransitionSchema),
  transcript: z.array(TranscriptEntrySchema),
  queue: z.array(z.looseObject({ target: z.string(), expires: z.number() })),
  rulesFired: z.record(z.string(), z.number()),
  lastDecision: z.looseObject({}).nullable(),
  pipelineIndex: z.number().int(),
  loopFloor: z.number().int(),
  endReason: z.string().nullable(),
});

// Only the envelope: a malformed payload must not make the whole session unreadable. Readers check
// the fields they use per event type (event-schema.ts) and skip what is malformed.
const EventSchema = z.looseObject({ type: z.string(), session_id: z.string(), at: z.string() });

/** zod schema of a session file at the current version. */
export const SessionFileSchema = z.object({
  schema: z.literal(SESSION_SCHEMA_VERSION),
  id: z.string(),
  team: z.object({ name: z.string(), dir: z.string(), maxTurns: z.number().int().positive().optional() }),
  model: z.string(),
  mode: z.enum(['fsm', 'simple']),
  brief: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  events: z.array(EventSchema),
  snapshot: SnapshotSchema,
  /** Opaque slot for the memory module's toJSON() output (null while memory is off). */
  memory: z.unknown(),
  /** Opaque slot for usage totals (null until a usage tracker fills it). */
  usage: z.unknown(),
});

/** One stored session: metadata, the event log, the latest engine snapshot and opaque module state. */
export interface SessionFile {
  schema: typeof SESSION_SCHEMA_VERSION;
  id: string;
  team: { name: string; dir: string; maxTurns?: number };
  /** Label of the model the session was started with (never a key). */
  model: string;
  mode: SessionState['mode'];
  brief: string;
  createdAt: string;
  updatedAt: string;
  events: TroupeEvent[];
  snapshot: SessionState;
  memory: unknown;
  usage: unknown;
}
