import { z } from 'zod';

/** Criteria a proposal carries; each in 0..1. */
export const CriteriaSchema = z.strictObject({
  urgency: z.number().min(0).max(1).default(0.5),
  dependency: z.number().min(0).max(1).default(0.5),
  user_intent: z.number().min(0).max(1).default(0.5),
});

/** A keyword rule that raises a proposal for the persona that owns it. */
export const TriggerSchema = z.strictObject({
  id: z.string().min(1).optional().describe('Stable name for the rule; defaults to <persona>#<index>.'),
  keywords: z.array(z.string().min(1)).min(1).describe('Any of these words in the recent conversation arms the rule.'),
  and_keywords: z
    .array(z.string().min(1))
    .optional()
    .describe('When set, one of these words must also appear (e.g. "budget" and "multiplayer").'),
  criteria: CriteriaSchema.default({ urgency: 0.5, dependency: 0.5, user_intent: 0.5 }),
  detour: z.boolean().default(true).describe('A detour returns control to the proposer after this persona answers.'),
  reason: z.string().min(1).describe('Shown in the arbitration record, e.g. "budget review".'),
});

/** A persona: one agent state inside a major state. */
export const PersonaSchema = z.strictObject({
  $schema: z.string().optional(),
  id: z
    .string()
    .regex(/^[a-z][a-z0-9_]*$/, 'must be snake_case (lowercase letters, digits, underscores)'),
  name: z.string().min(1),
  major: z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'must be an UPPER_CASE major state id'),
  prompt: z.string().min(1).describe('Prompt file inside the team prompts/ directory.'),
  model: z.string().min(1).default('base').describe('A tier (base, smart, fast) or a model id.'),
  handoff_to: z
    .array(z.string().min(1))
    .default([])
    .describe('Persona ids or whole major ids this persona may hand to; empty means anyone.'),
  triggers: z.array(TriggerSchema).default([]),
  description: z.string().min(1).describe('Shown to the other personas in the roster.'),
});

export type Criteria = z.infer<typeof CriteriaSchema>;
export type Trigger = z.infer<typeof TriggerSchema>;
export type Persona = z.infer<typeof PersonaSchema>;
