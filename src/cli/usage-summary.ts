import type { TroupeSession } from '../session/troupe-session.js';
import { payerName } from '../report/names.js';
import { formatUsageSummary } from '../usage/summary.js';
import { complainer, printer, type CliIo } from './io.js';

/**
 * Prints the session's usage at the end of a headless run (`troupe run`, `troupe resume`): the meter's totals, by display name as !cost gives them,
 * so a resumed session's include every call before it. With --json stdout holds only events: it goes to stderr.
 */
export function printUsageSummary(session: TroupeSession, io: CliIo, options: { json: boolean }): void {
  const write = options.json ? complainer(io) : printer(io);
  if (!options.json) write('');
  for (const line of formatUsageSummary(session.usage(), (key) => payerName(session.def, key))) write(line);
}
