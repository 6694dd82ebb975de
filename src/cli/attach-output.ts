import { eventJson, eventLines } from '../report/event-lines.js';
import type { TroupeSession } from '../session/troupe-session.js';

/** Prints a session as it runs: a readable transcript, or one JSON line per event (`--json`). */
export function attachOutput(session: TroupeSession, options: { json: boolean; write: (line: string) => void }): () => void {
  const { write } = options;
  if (options.json) {
    return session.subscribe((e) => {
      if (e.type !== 'agent_delta') write(eventJson(e));
    });
  }
  const toLines = eventLines(session.def);
  return session.subscribe((e) => {
    for (const line of toLines(e)) write(line);
  });
}
