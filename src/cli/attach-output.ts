import { redact as redactProcess, redactDeep, type Redactor } from '../llm/redact.js';
import { eventJson, eventLines } from '../report/event-lines.js';
import type { TroupeSession } from '../session/troupe-session.js';
import { namingCommand } from './invocation.js';

/**
 * Prints a session as it runs: a readable transcript, or one JSON line per event (`--json`); secrets redacted in both.
 * `troupe` is the command the user types (troupeCommand): the hints of troupe's own lines (an error: "continue it with
 * troupe resume …") name it; the JSON keeps the words as troupe wrote them.
 */
export function attachOutput(session: TroupeSession, options: { json: boolean; write: (line: string) => void; redact?: Redactor; troupe?: () => string }): () => void {
  const { write, redact = redactProcess } = options;
  if (options.json) {
    return session.subscribe((e) => {
      if (e.type !== 'agent_delta') write(eventJson(redactDeep(e, redact)));
    });
  }
  const toLines = eventLines(session.def);
  const { troupe } = options;
  return session.subscribe((e) => {
    const ownWords = troupe !== undefined && (e.type === 'error' || e.type === 'session_detached');
    for (const line of toLines(redactDeep(e, redact))) write(ownWords ? namingCommand(line, troupe()) : line);
  });
}
