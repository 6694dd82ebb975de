import type { TroupeSession } from '../session/troupe-session.js';

/** Opens the Ink UI on a session and saves it when the user leaves; a resumed session shows its recent history first. */
export async function runInteractive(session: TroupeSession, options: { resumed?: boolean } = {}): Promise<void> {
  const { runUi } = await import('../ui/run-ui.js');
  const memory = session.memorySnapshot() ? () => session.memorySnapshot()! : undefined;
  try {
    await runUi({
      session,
      history: options.resumed ? [...session.recent()] : [],
      // Resuming re-runs a turn that was in flight; start it once the UI listens, so it streams.
      onReady: () => session.resume(),
      ...(memory ? { memory } : {}),
    });
  } finally {
    await session.stop();
  }
}
