import { z } from 'zod';
import { MAX_TURNS } from './max-turns.js';
import { DisplayName, DisplayText } from './persona-schema.js';
import { PARSE_ONCE } from './parse-once.js';

const MajorId = z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'must be an UPPER_CASE major state id');
const PersonaId = z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be a snake_case persona id');

const criteria = (max: number | null, fallback: { urgency: number; dependency: number; user_intent: number }) => {
  const n = max === null ? z.number().min(0) : z.number().min(0).max(max);
  return z.strictObject({ urgency: n.default(fallback.urgency), dependency: n.default(fallback.dependency), user_intent: n.default(fallback.user_intent) }).default(fallback);
};

/** A major state: a compound state holding persona substates. */
export const MajorSchema = z.strictObject({
  id: MajorId,
  description: DisplayText.default(''),
  lead: PersonaId.optional().describe('Persona that takes control on !switch_to; required unless kind is "user".'),
  personas: z.array(PersonaId).default([]),
  kind: z.enum(['team', 'user']).default('team').describe('"user" marks the state that holds the human.'),
});

/** Arbiter weights and rules. */
export const ArbiterSchema = z.strictObject({
  weights: criteria(null, { urgency: 0.3, dependency: 0.4, user_intent: 0.3 }),
  default_criteria: criteria(1, { urgency: 0.5, dependency: 0.5, user_intent: 0.5 }).describe('Criteria assumed for a proposal that states none.'),
  blocking_dependency: z.number().min(0).max(1).nullable().default(null).describe('A proposal whose dependency reaches this value is blocking and wins over higher scores; null disables.'),
  trigger_window: z.number().int().min(1).default(2).describe('How many recent turns trigger rules read.'),
  rule_cooldown_turns: z.number().int().min(0).default(6).describe('Turns before the same rule may fire again.'),
  queue_ttl_turns: z.number().int().min(0).default(4).describe('Turns a deferred proposal stays in the queue.'),
});

/** Loop and budget limits. */
export const LimitsSchema = z.strictObject({
  max_turns: z.number().int().min(1).max(MAX_TURNS).default(40),
  max_reworks_per_pair: z.number().int().min(0).default(3),
  ping_pong: z.number().int().min(2).default(4).describe('A<->B handoffs repeated this many times pause the session.'),
  max_tokens: z.number().int().min(1).nullable().default(null),
  max_cost: z.number().min(0).nullable().default(null),
});

/** Rolling memory settings. */
export const MemorySchema = z.strictObject({
  enabled: z.boolean().default(true),
  compress_every: z.number().int().min(1).default(5),
  keep_recent: z.number().int().min(0).default(2),
  max_summaries: z.number().int().min(1).default(10),
  prompt_budget: z.number().int().min(256).default(12000).describe('Max prompt tokens per call.'),
  new_pins: z
    .enum(['after_turns', 'in_system'])
    .default('after_turns')
    .describe(
      'Where a newly pinned decision is shown until the next summary: after the recent turns (the system prompt stays byte-identical, so providers can serve the prompt from their cache), or in the system prompt at once (every new pin changes the system prompt, and nothing after it is served from a cache).',
    ),
});

/** How the next persona is predicted and its prompt warmed (seed 004's state warming). */
export const WarmingSettingsSchema = z.strictObject({
  mode: z
    .enum(['off', 'predict', 'prefix'])
    .default('predict')
    .describe(
      '"predict": each turn predicts the next personas (a prediction event) and builds their prompts while the current one answers; "prefix": also sends a cache-warming request (one output token) with the top prediction\'s prompt prefix, once the server has reported cached tokens; "off": neither.',
    ),
  min_confidence: z.number().min(0).max(1).default(0.3).describe('Only predictions at least this confident are warmed (seed 004: 0.3).'),
  per_turn: z.number().int().min(1).max(3).default(1).describe('Warming requests per turn, for the best predictions above min_confidence.'),
  max_share: z.number().min(0).default(1).describe("Warming requests send at most this many prompt tokens per prompt token of the session's own calls (1: as many)."),
  max_tokens: z.number().int().min(0).nullable().default(null).describe('And at most this many prompt tokens in all per session (null: no fixed cap).'),
});

/** team.json `warming`: a mode alone ("prefix"), or the settings. */
export const WarmingSchema = z
  .union([z.enum(['off', 'predict', 'prefix']), WarmingSettingsSchema], {
    error: 'must be "off", "predict" or "prefix", or an object with mode, min_confidence, per_turn, max_share and max_tokens (no other keys)',
  })
  .transform((w) => (typeof w === 'string' ? WarmingSettingsSchema.parse({ mode: w }, PARSE_ONCE) : w));

/** One stage of the linear pipeline used by !simple. */
export const PipelineStageSchema = z.strictObject({ stage: DisplayName, persona: PersonaId });

/** team.json: the whole team definition. */
export const TeamSchema = z.strictObject({
  $schema: z.string().optional(),
  name: DisplayName,
  description: DisplayText.default(''),
  majors: z.array(MajorSchema).min(1),
  initial: z.string().regex(/^[A-Z][A-Z0-9_]*\.[a-z][a-z0-9_]*$/, 'must be a state path MAJOR.persona_id'),
  arbiter: ArbiterSchema.default(ArbiterSchema.parse({}, PARSE_ONCE)),
  limits: LimitsSchema.default(LimitsSchema.parse({}, PARSE_ONCE)),
  memory: MemorySchema.default(MemorySchema.parse({}, PARSE_ONCE)),
  pipeline: z.array(PipelineStageSchema).min(1),
  approval: z.enum(['auto', 'on_major_change', 'every']).default('auto').describe('When the session pauses for !approve before a transition.'),
  models: z.object({ base: z.string().min(1), smart: z.string().min(1), fast: z.string().min(1) }).default({ base: 'gpt-4o-mini', smart: 'gpt-4o', fast: 'gpt-4o-mini' }),
  warming: WarmingSchema.default(WarmingSettingsSchema.parse({}, PARSE_ONCE)).describe('Predicting the next persona and warming its prompt: "off", "predict" (default), "prefix", or the settings.'),
});

export type Major = z.infer<typeof MajorSchema>;
export type ArbiterConfig = z.infer<typeof ArbiterSchema>;
export type Limits = z.infer<typeof LimitsSchema>;
export type MemoryConfig = z.infer<typeof MemorySchema>;
export type WarmingSettings = z.infer<typeof WarmingSettingsSchema>;
export type Team = z.infer<typeof TeamSchema>;
export type ApprovalPolicy = Team['approval'];
