import { z } from 'zod';
import { ModeSchema, SessionStatusSchema } from '../engine/session.js';
import { UsageViewSchema } from '../usage/session-usage.js';

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

/** `POST /v1/sessions/:id/input`: a line exactly as typed in the terminal UI (a reply, an interjection, a ! command). */
export const InputSchema = z.strictObject({ text: z.string().min(1).max(32_000) });

/** A session as the API shows it. */
export const SessionViewSchema = z.object({
  id: z.string(),
  definition: z.string(),
  kind: z.enum(['team', 'workflow']),
  status: SessionStatusSchema,
  hosted: z.boolean().describe('Running in this server now (else read from the store)'),
  brief: z.string(),
  turn: z.number(),
  state: z.array(z.string()).describe('The active states (one per parallel branch)'),
  active: z.string().nullable(),
  awaiting: z.object({ code: z.string(), reason: z.string() }).nullable(),
  endReason: z.string().nullable(),
  lastEventSeq: z.number(),
  usage: UsageViewSchema,
});

/** A line of `GET /v1/sessions`. */
export const SessionListItemSchema = z.object({
  id: z.string(),
  team: z.string(),
  brief: z.string(),
  status: z.string(),
  turns: z.number(),
  updatedAt: z.string(),
  hosted: z.boolean(),
});

/** What an input line did: nothing to show (events tell it), output lines (an inspection), or an error. */
export const InputResultSchema = z.object({ kind: z.enum(['none', 'output', 'quit']), title: z.string().optional(), lines: z.array(z.string()).optional() });

/** Every error: one line. */
export const ErrorSchema = z.object({ error: z.string() });
