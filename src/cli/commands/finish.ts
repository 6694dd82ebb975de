import type { TroupeSession } from '../../session/troupe-session.js';
import { savedLine } from '../common.js';
import type { CliIo } from '../io.js';

/**
 * Ends a headless run: lets background memory work land, detaches a session that waits for the user
 * (it stays resumable), saves, tells how to continue; the exit code says how it ended (1 after a failure).
 */
export async function finishHeadless(session: TroupeSession, io: CliIo, options: { json: boolean; quit: boolean }): Promise<number> {
  await session.settleMemory();
  const s = session.getSnapshot();
  // A run that stopped on a failure (a model call, a workflow state) exits non-zero, paused or ended.
  const failed = (s.status === 'awaiting_user' && s.awaiting?.code === 'failure') || (s.status === 'ended' && Boolean(s.workflow?.error));
  if (!options.quit && s.status === 'awaiting_user') await session.stop({ reason: 'awaiting_user', detail: s.awaiting?.reason ?? '' });
  else await session.stop();
  savedLine(io, session.id, options.json, s.status);
  return failed ? 1 : 0;
}
