import type { WorkflowLauncher } from '../commands/execute.js';
import type { TroupeSession } from '../session/troupe-session.js';

/**
 * Opens the Ink UI on a session and saves it when the user leaves; a resumed session shows its recent
 * history first. `/workflow` moves the UI to a new workflow session: the one left is paused and saved.
 */
export async function runInteractive(session: TroupeSession, options: { resumed?: boolean; workflows?: WorkflowLauncher } = {}): Promise<TroupeSession> {
  const { runUi } = await import('../ui/run-ui.js');
  const memory = session.memorySnapshot() ? () => session.memorySnapshot()! : undefined;
  const sessions = [session];
  let last = session;
  try {
    await runUi({
      session,
      history: options.resumed ? [...session.recent()] : [],
      // Resuming re-runs a turn that was in flight; start it once the UI listens, so it streams.
      onReady: () => session.resume(),
      ...(memory ? { memory } : {}),
      ...(options.workflows ? { workflows: options.workflows } : {}),
      onSwitch: (from, to) => {
        sessions.push(to);
        last = to;
        void from.stop({ reason: 'user_left', detail: `the UI moved to the workflow ${to.def.name}; continue this session with troupe resume ${from.id.slice(0, 8)}` }).catch(() => undefined);
      },
    });
  } finally {
    for (const s of sessions) await s.stop().catch((error: unknown) => (s === last ? Promise.reject(error) : undefined));
  }
  return last;
}
