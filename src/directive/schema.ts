import { z } from 'zod';

/** The transitions a persona may ask for. */
export const TRANSITIONS = ['APPROVE_AND_HANDOFF', 'REQUEST_REWORK', 'HANDOFF_TO_AGENT', 'RESPOND_TO_USER', 'COMPLETE'] as const;

const unit = z.number().min(0).max(1);

/** A further proposal inside a directive. */
export const AlternativeSchema = z.object({
  next_agent: z.string().min(1),
  urgency: unit.optional(),
  dependency: unit.optional(),
  user_intent: unit.optional(),
  reason: z.string().optional(),
});

/** The handoff directive a persona returns with each turn (wire contract in DESIGN.md). */
export const DirectiveSchema = z
  .object({
    transition: z.enum(TRANSITIONS),
    next_agent: z.string().min(1).optional(),
    approval_status: z.enum(['APPROVED', 'REQUEST_REWORK', 'PENDING']).optional(),
    rework_reason: z.string().optional(),
    urgency: unit.optional(),
    dependency: unit.optional(),
    user_intent: unit.optional(),
    alternatives: z.array(AlternativeSchema).max(8).optional(),
    key_decisions: z.array(z.string().min(1)).max(20).optional(),
    content: z.string().optional(),
  })
  .superRefine((d, ctx) => {
    const handsOver = d.transition === 'APPROVE_AND_HANDOFF' || d.transition === 'HANDOFF_TO_AGENT';
    if (handsOver && !d.next_agent && (d.alternatives?.length ?? 0) === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['next_agent'],
        message: `${d.transition} needs next_agent (a persona id or name from the roster)`,
      });
    }
  });

/** A validated directive. */
export type Directive = z.infer<typeof DirectiveSchema>;
/** One alternative proposal. */
export type Alternative = z.infer<typeof AlternativeSchema>;
/** A transition kind. */
export type TransitionKind = (typeof TRANSITIONS)[number];

/** Name of the function tool persona turns offer. */
export const DIRECTIVE_TOOL_NAME = 'handoff_directive';

/** A directive parse as the engine receives it: the directive, or why it could not be read. */
export const DirectiveResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), directive: DirectiveSchema, source: z.enum(['tool', 'text']) }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);
/** A directive parse as the engine receives it. */
export type DirectiveResult = z.infer<typeof DirectiveResultSchema>;
