import { z } from 'zod';
import { lazySchema } from '../config/lazy-schema.js';
import { MAX_TURNS } from '../config/max-turns.js';
import { EnvelopeSchema } from '../engine/event-map.js';
import { ModeSchema } from '../engine/session.js';
import { EngineInputSchema, SessionStateSchema } from '../kinds/schemas.js';
import { WorkflowPlanSchema } from '../workflow/run/plan.js';

/** The session document format this build writes; bump it (and add a migration) when the layout changes. */
export const SESSION_SCHEMA_VERSION = 8;

const Hash = z.string().regex(/^[0-9a-f]{16}$/, 'expected 16 hex digits');
const Seal = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 hex digits');

/**
 * A stored event: its envelope is checked, its payload only where a reader uses it (readers check the
 * fields they read per type and skip what is malformed), so a file with an event of a newer kind opens.
 */
export const StoredEventSchema = lazySchema(() => EnvelopeSchema.extend({ type: z.string() }).loose());

/**
 * One line of a session's journal: its number, the engine input of one step (absent for runtime facts
 * such as usage) and the events that step published; folding `step()` over the inputs rebuilds the
 * session. From schema 3 each line ends with its seal (see journal-chain.ts): the previous line's hash
 * and its own, which the store adds as it writes the line. From schema 4 a line stores its events without
 * what the file and the line already say (see journal-codec.ts), from schema 5 an arbitration's decision
 * packed (see decision-rows.ts), from schema 6 with the facts published before the step and the calls it
 * starts in the step's line (one line per turn), from schema 7 events of a usual layout as rows (see
 * event-rows.ts), from schema 8 without the events step() derives from its input (a reader replays them: see
 * journal-replay.ts); this is the record as read back.
 */
export const JournalRecordSchema = z.lazy(() =>
  z.object({
    n: z.number().int().min(1),
    input: EngineInputSchema.optional(),
    /** How many of the events, first in the line, are runtime facts published before the step (schema 6 on; absent: none). */
    facts: z.number().int().min(1).optional(),
    events: z.array(StoredEventSchema),
    /**
     * Schema 8: where the events step() derived from the input go, left out of the line (see journal-codec.ts);
     * present on a record read back until a reader replays them (then they are in `events`).
     */
    derived: z.object({ semantics: z.number().int(), count: z.number().int(), digest: z.number().int(), seq: z.number().int(), at: z.number(), times: z.array(z.number()).optional() }).optional(),
    prev: Hash.optional(),
    hash: Hash.optional(),
  }),
);
/** One line of a session's journal. */
export type JournalRecord = z.infer<typeof JournalRecordSchema>;

/** What a checkpoint holds: the engine snapshot after the first `records` journal lines, and module state. */
export const CheckpointSchema = z.lazy(() =>
  z.object({
    /** Journal lines folded into this snapshot. */
    records: z.number().int().min(0),
    /** The seq of the last event published before it. */
    lastSeq: z.number().int().min(0),
    snapshot: SessionStateSchema,
    /** The memory module's toJSON() output (null while memory is off). */
    memory: z.unknown(),
    /** Usage totals (the meter's plain-data state). */
    usage: z.unknown(),
    /** Who followed whom in this session (state warming's learned transitions, plain data; absent in files before it). */
    transitions: z.unknown().optional(),
    /**
     * The hash of the last journal line it covers (0000000000000000 when none), filled in by the store: a
     * journal cut below the checkpoint or rewritten under it is refused. Absent only in a version-2 file.
     */
    hash: Hash.optional(),
  }),
);
/** A checkpoint of a session. */
export type Checkpoint = z.infer<typeof CheckpointSchema>;

const WorkflowRefSchema = z.object({ name: z.string(), source: z.string() });

/** A document's fields that come from outside its builder (see newDocumentSchema), `workflow` as given, in the document's order. */
const outsideFields = <W extends z.ZodType>(workflow: W) => ({
  schema: z.literal(SESSION_SCHEMA_VERSION),
  id: z.string(),
  team: z.object({ name: z.string(), dir: z.string(), maxTurns: z.number().int().positive().max(MAX_TURNS).optional() }),
  /** The declarative workflow the session runs (absent for a team session): its name, where it was loaded from, and the plan it runs (so a resumed session runs what it started with, even if the file changed). */
  workflow,
  /** The HMAC of `team.dir` and `workflow.source` under the key of the user whose troupe started the session (src/session/source-seal.ts): resuming trusts them only with it. Absent in documents before it. */
  seal: Seal.optional(),
  /** Label of the model the session was started with (never a key). */
  model: z.string(),
  mode: ModeSchema,
  brief: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** The session this one was forked from, and the journal step it was forked at (its journal holds that one's lines up to it). */
const forkedFrom = () => z.object({ id: z.string(), step: z.number().int().min(0) }).optional();

/** The session document: metadata, the state its journal starts from, and the latest checkpoint (a cache). */
export const SessionDocumentSchema = lazySchema(() =>
  z.object({
    ...outsideFields(WorkflowRefSchema.extend({ plan: z.lazy(() => WorkflowPlanSchema).optional() }).optional()),
    /** The state the journal starts from: a fresh session, or the snapshot of a migrated older file. */
    base: SessionStateSchema,
    checkpoint: CheckpointSchema,
    /** Events of a file migrated from version 1, until the store writes them to the journal. */
    legacyEvents: z.array(StoredEventSchema).optional(),
    forkedFrom: forkedFrom(),
  }),
);

/** The session document. */
export type SessionDocument = z.infer<typeof SessionDocumentSchema>;

let newDocument: z.ZodType | undefined;

/**
 * The part of a new session document that comes from outside its builder: ids, names, the brief, the
 * model's label, limits and times, checked by the store's `create` with the document schema's own rules
 * (the same messages). The rest is built valid: the state by `initialState` (or copied from a document
 * that loaded), the checkpoint empty, the plan by the workflow loader; tests/store/new-document.test.ts
 * parses built documents with the whole schema. Building the whole vocabulary (the state, inputs and
 * plan schemas) is left to the first read, off a new session's path to its first request.
 */
export function newDocumentSchema(): z.ZodType {
  newDocument ??= z.object({ ...outsideFields(WorkflowRefSchema.optional()), forkedFrom: forkedFrom() });
  return newDocument;
}
