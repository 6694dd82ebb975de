import { z } from 'zod';
import type { TroupeEvent } from '../engine/event-map.js';

// The session file checks only type/session_id/at of each event, so a file with an event of a
// newer kind still opens. These schemas check the fields the readers (show, export, sessions,
// !history, a resumed demo) use, per event type; types no reader uses pass unchecked.
const str = z.string();
const num = z.number();

const ProposalSchema = z.looseObject({
  target: str,
  targetId: str.nullable(),
  source: str,
  score: num.nullable(),
  status: z.enum(['winner', 'lost', 'dropped']),
  dropReason: str.optional(),
});

const DirectiveSchema = z.looseObject({
  transition: str,
  next_agent: str.optional(),
  rework_reason: str.optional(),
  key_decisions: z.array(str).optional(),
});

const PAYLOADS: Partial<Record<TroupeEvent['type'], z.ZodType>> = {
  session_started: z.looseObject({ brief: str, mode: str, team: str, model: str }),
  agent_started: z.looseObject({ turn_id: str, persona: str, inbox: str, attempt: num }),
  agent_message: z.looseObject({ turn_id: str, path: str, text: str, turn: num }),
  directive: z.looseObject({ persona: str, directive: DirectiveSchema }),
  directive_invalid: z.looseObject({ persona: str, error: str, repairing: z.boolean() }),
  arbitration: z.looseObject({ decision: z.looseObject({ proposals: z.array(ProposalSchema), why: str }) }),
  transition: z.looseObject({ from: str, to: str, kind: str, reason: str }),
  approval: z.looseObject({ by: str, of: str, status: str, reason: str.optional() }),
  awaiting_user: z.looseObject({ reason: str }),
  note: z.looseObject({ text: str }),
  error: z.looseObject({ message: str, where: str }),
  memory_compressed: z.looseObject({ turns_in: num, tokens_before: num, tokens_after: num, summaries: num }),
  memory_trimmed: z.looseObject({ persona: str, dropped: z.array(str), tokens_after: num, budget: num }),
  mode_changed: z.looseObject({ mode: str }),
  usage: z.looseObject({ prompt_tokens: num, completion_tokens: num, cost: num.nullable() }),
  session_ended: z.looseObject({ reason: str, detail: str.optional() }),
};

/** A session's event log with the malformed events left out, and one note per event skipped. */
export interface CheckedEvents {
  events: TroupeEvent[];
  skipped: string[];
}

/** Why an event cannot be read (`field: problem`), or null when every field a reader uses is well-formed. */
export function eventProblem(e: TroupeEvent): string | null {
  const schema = PAYLOADS[e.type];
  if (!schema) return null;
  const parsed = schema.safeParse(e);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  return `${issue.path.map(String).join('.') || '(event)'}: ${issue.message}`;
}

/** Keeps the events readers can trust (optionally only some types); notes each malformed one as "events[N] (type) is malformed and was skipped". */
export function checkEvents(events: TroupeEvent[], types?: ReadonlySet<string>): CheckedEvents {
  const kept: TroupeEvent[] = [];
  const skipped: string[] = [];
  events.forEach((e, i) => {
    if (types && !types.has(e.type)) return;
    const problem = eventProblem(e);
    if (problem === null) kept.push(e);
    else skipped.push(`events[${i}] (${e.type}) is malformed and was skipped — ${problem}`);
  });
  return { events: kept, skipped };
}
