import { redact as redactProcess, redactDeep, type Redactor } from '../llm/redact.js';
import { eventJson, eventLines } from '../report/event-lines.js';
import type { TroupeSession } from '../session/troupe-session.js';

/** Prints a session as it runs: a readable transcript, or one JSON line per event (`--json`); secrets redacted in both. */
export function attachOutput(session: TroupeSession, options: { json: boolean; write: (line: string) => void; redact?: Redactor }): () => void {
  const { write, redact = redactProcess } = options;
  if (options.json) {
    return session.subscribe((e) => {
      if (e.type !== 'agent_delta') write(eventJson(redactDeep(e, redact)));
    });
  }
  const toLines = eventLines(session.def);
  return session.subscribe((e) => {
    for (const line of toLines(redactDeep(e, redact))) write(line);
  });
}
