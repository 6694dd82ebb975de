import { z } from 'zod';

// Names and descriptions are printed on terminals and sent in prompts: no escape sequences, CR or backspace.
const NO_CONTROLS = /^[^\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]*$/;
const NO_CONTROLS_ONE_LINE = /^[^\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]*$/;

/** A one-line display text (a name): no control characters, no line breaks. */
export const DisplayName = z.string().min(1).regex(NO_CONTROLS_ONE_LINE, 'must not hold control characters (escape sequences, line breaks, CR, backspace)');
/** A text shown to people and models (a description): line breaks and tabs allowed, no other control characters. */
export const DisplayText = z.string().regex(NO_CONTROLS, 'must not hold control characters (escape sequences, CR, backspace)');

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
  and_keywords: z.array(z.string().min(1)).optional().describe('When set, one of these words must also appear (e.g. "budget" and "multiplayer").'),
  criteria: CriteriaSchema.default({ urgency: 0.5, dependency: 0.5, user_intent: 0.5 }),
  detour: z.boolean().default(true).describe('A detour returns control to the proposer after this persona answers.'),
  reason: DisplayName.describe('Shown in the arbitration record, e.g. "budget review".'),
});

/** A persona: one agent state inside a major state. */
export const PersonaSchema = z.strictObject({
  $schema: z.string().optional(),
  id: z
    .string()
    .regex(/^[a-z][a-z0-9_]*$/, 'must be snake_case (lowercase letters, digits, underscores)')
    .refine((id) => id !== 'user', '"user" is the human (the user state), not a persona: choose another id'),
  name: DisplayName,
  major: z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'must be an UPPER_CASE major state id'),
  prompt: z.string().min(1).describe('Prompt file inside the team prompts/ directory.'),
  model: z.string().min(1).default('base').describe('A tier (base, smart, fast) or a model id.'),
  handoff_to: z.array(z.string().min(1)).default([]).describe('Persona ids or whole major ids this persona may hand to; empty means anyone.'),
  triggers: z.array(TriggerSchema).default([]),
  description: DisplayText.min(1).describe('Shown to the other personas in the roster.'),
});

export type CriteriaConfig = z.infer<typeof CriteriaSchema>;
export type Trigger = z.infer<typeof TriggerSchema>;
export type Persona = z.infer<typeof PersonaSchema>;
