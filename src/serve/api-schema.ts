import { z } from 'zod';
import { ModeSchema, SessionStatusSchema } from '../engine/session.js';
import { UsageViewSchema } from '../usage/session-usage.js';

/** The session a fork was made from, and the journal step it was made at. */
export const ForkedFromSchema = z.object({ id: z.string(), step: z.number().int() });

/** A model id as a request may name one: printable, no spaces. */
const ModelId = z.string().regex(/^[\x21-\x7e]{1,200}$/, 'must be a model id (printable characters, no spaces)');

/** `POST /v1/sessions`: what to run (the server's team, or one of its workflows), on what, in which mode. */
export const CreateSessionSchema = z.strictObject({
  brief: z.string().min(1).max(32_000).optional().describe('The brief for a team session'),
  team: z.string().optional().describe("The team's name (the server runs one team; naming another is an error)"),
  workflow: z.string().optional().describe('The name of a workflow of the server to run instead of the team (a path only on a server started with --allow-workflow-paths)'),
  input: z.string().max(32_000).optional().describe("The workflow's input (defaults to the brief)"),
  mode: ModeSchema.optional(),
  models: z
    .strictObject({ base: ModelId.optional(), smart: ModelId.optional(), fast: ModelId.optional() })
    .optional()
    .describe('Model ids for the tiers, for this session only (like TROUPE_MODEL_BASE / _SMART / _FAST)'),
});

/**
 * `POST /v1/sessions` as the OpenAPI document describes it: a team session (brief required) or a workflow
 * session (workflow required). The route parses with CreateSessionSchema, which says which field is missing.
 */
export const CreateSessionDocSchema = z.union([
  z
    .strictObject({ brief: CreateSessionSchema.shape.brief.unwrap(), team: CreateSessionSchema.shape.team, mode: CreateSessionSchema.shape.mode, models: CreateSessionSchema.shape.models })
    .describe('A team session on a brief'),
  z
    .strictObject({
      workflow: CreateSessionSchema.shape.workflow.unwrap(),
      input: CreateSessionSchema.shape.input,
      brief: CreateSessionSchema.shape.brief,
      team: CreateSessionSchema.shape.team,
      models: CreateSessionSchema.shape.models,
    })
    .describe('A workflow session on an input'),
]);

/** `POST /v1/sessions/:id/input`: a line exactly as typed in the terminal UI (a reply, an interjection, a ! command). */
export const InputSchema = z.strictObject({ text: z.string().min(1).max(32_000) });

/** A session as the API shows it. */
export const SessionViewSchema = z.object({
  id: z.string(),
  definition: z.string(),
  kind: z.enum(['team', 'workflow']),
  status: SessionStatusSchema,
  statusText: z.string().describe('The status in words, as the list and troupe sessions say it ("interrupted": running when its process stopped)'),
  hosted: z.boolean().describe('Running in this server now (else read from the store)'),
  brief: z.string(),
  turn: z.number(),
  state: z.array(z.string()).describe('The active states (one per parallel branch)'),
  active: z.string().nullable(),
  awaiting: z.object({ code: z.string(), reason: z.string() }).nullable(),
  endReason: z.string().nullable(),
  lastEventSeq: z.number(),
  usage: UsageViewSchema,
  visits: z.record(z.string(), z.number()).describe('Visits of each state so far, by state key'),
  branches: z
    .array(z.object({ id: z.string(), agent: z.string(), status: z.enum(['pending', 'running', 'done', 'failed', 'cancelled', 'skipped']), error: z.string().optional() }))
    .describe('The branches of the fan-out running now (empty when none)'),
  forkedFrom: ForkedFromSchema.nullable(),
});

/** A line of `GET /v1/sessions`. */
export const SessionListItemSchema = z.object({
  id: z.string(),
  team: z.string(),
  /** The workflow it runs, or null for a team session. */
  workflow: z.string().nullable(),
  brief: z.string(),
  status: SessionStatusSchema.describe("As GET /v1/sessions/{id} says: the running session's own status when it runs here"),
  statusText: z.string().describe('The status in words, as troupe sessions shows it ("interrupted": running when its process stopped)'),
  turns: z.number(),
  updatedAt: z.string(),
  hosted: z.boolean(),
});

/** What an input line did: nothing to show (events tell it), output lines (an inspection), or an error. */
export const InputResultSchema = z.object({ kind: z.enum(['none', 'output', 'quit']), title: z.string().optional(), lines: z.array(z.string()).optional() });

/** Every error: one line. */
export const ErrorSchema = z.object({ error: z.string() });

/** `/healthz`. */
export const HealthSchema = z.object({ ok: z.boolean(), sessions: z.number().optional(), backend: z.string().optional() });

/** `POST /v1/sessions/:id/fork`: the journal step to fork at (a `step` of the timeline). */
export const ForkSchema = z.strictObject({ step: z.number().int().min(0).describe('The journal step to fork at: the new session holds the journal up to it') });

/** One step of `GET /v1/sessions/:id/timeline`. */
export const TimelineStepSchema = z.object({
  step: z.number().int(),
  by: z.enum(['user', 'agent', 'system']),
  title: z.string(),
  lines: z.array(z.string()),
  at: z.number().nullable(),
  lastSeq: z.number(),
  turn: z.number(),
});

/** `GET /v1/sessions/:id/timeline`. */
export const TimelineSchema = z.object({ id: z.string(), steps: z.array(TimelineStepSchema) });

/** `GET /v1/sessions/:id/steps/:step`: the session as it was after a step. */
export const StepViewSchema = z.object({ step: z.number().int(), lastSeq: z.number(), session: SessionViewSchema });

/** `GET /v1/sessions/:id/deliverables`: what the session produced. */
export const DeliverablesSchema = z.object({
  id: z.string(),
  kind: z.enum(['team', 'workflow']),
  definition: z.string(),
  brief: z.string(),
  status: z.string(),
  endReason: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  forkedFrom: ForkedFromSchema.nullable(),
  decisions: z.object({
    pinned: z.array(z.object({ by: z.string(), text: z.string() })),
    approvals: z.array(z.object({ turn: z.number(), by: z.string(), of: z.string(), status: z.enum(['APPROVED', 'REQUEST_REWORK']), reason: z.string().optional() })),
    verdicts: z.array(z.object({ state: z.string(), round: z.number(), reviewer: z.string(), agree: z.boolean(), approve: z.boolean(), feedback: z.string() })),
    debates: z.array(z.object({ state: z.string(), rounds: z.number(), consensus: z.boolean(), approve: z.boolean(), synthesised: z.boolean() })),
  }),
  output: z.unknown().describe("The workflow's output (null: none)"),
  finals: z.array(z.object({ persona: z.string(), name: z.string(), branch: z.string().optional(), turn: z.number(), text: z.string() })),
  workspaces: z.array(
    z.object({
      name: z.string(),
      dir: z.string().nullable(),
      persona: z.string().optional(),
      branch: z.string().optional(),
      files: z.array(z.object({ path: z.string(), status: z.enum(['added', 'modified', 'deleted']) })),
      diff: z.string(),
    }),
  ),
});

/** `GET /v1/sessions/:id/graph`: the definition as a graph (what `troupe graph` draws). */
export const GraphSchema = z.object({
  kind: z.enum(['team', 'workflow']),
  title: z.string(),
  initial: z.string(),
  nodes: z.array(
    z.object({ id: z.string(), label: z.string(), detail: z.string().optional(), group: z.string().optional(), kind: z.enum(['persona', 'user', 'state', 'branch']), persona: z.string().optional() }),
  ),
  groups: z.array(z.object({ id: z.string(), label: z.string(), parent: z.string().optional(), state: z.string().optional() })),
  edges: z.array(z.object({ from: z.string(), to: z.string(), label: z.string().optional() })),
  names: z.record(z.string(), z.string()).describe("The display name of each of the session's agents, by id"),
});

/** `GET /v1/catalog`: what this server runs: its team (personas, majors, modes), its workflows with their input, the commands. */
export const CatalogSchema = z.object({
  team: z.object({
    name: z.string(),
    modes: z.array(ModeSchema),
    majors: z.array(z.object({ id: z.string(), kind: z.enum(['team', 'user']), lead: z.string().nullable() })),
    personas: z.array(z.object({ id: z.string(), name: z.string(), major: z.string(), description: z.string() })),
  }),
  workflows: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      input: z.object({ name: z.string(), type: z.string().optional(), description: z.string().optional() }).nullable(),
      problem: z.string().optional(),
    }),
  ),
  commands: z.array(z.object({ name: z.string(), usage: z.string(), summary: z.string() })),
  /** Server events the console reads (SSE names: error goes as troupe_error). */
  events: z.array(z.string()),
});
