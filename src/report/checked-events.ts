import type { TroupeEvent, TroupeEventName } from '../engine/event-map.js';
import { EVENT_PAYLOADS } from '../kinds/schemas.js';

/** A session's event log with the malformed events left out, and one note per event skipped. */
export interface CheckedEvents {
  events: TroupeEvent[];
  skipped: string[];
}

/** Why an event cannot be read (`field: problem`), or null when its payload matches its type's schema (unknown types pass). */
export function eventProblem(e: TroupeEvent): string | null {
  const schema = EVENT_PAYLOADS[e.type as TroupeEventName] as (typeof EVENT_PAYLOADS)[TroupeEventName] | undefined;
  if (!schema) return null;
  const parsed = schema.safeParse(e);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  return `${issue.path.map(String).join('.') || '(event)'}: ${issue.message}`;
}

/** Keeps the events readers can trust (optionally only some types); notes each malformed one as "events[N] (type) is malformed and was skipped". */
export function checkEvents(events: readonly TroupeEvent[], types?: ReadonlySet<string>): CheckedEvents {
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
