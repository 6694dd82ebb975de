import { setFlagsFromString } from 'node:v8';
import type { WorkflowLauncher } from '../commands/execute.js';
import type { TroupeSession } from '../session/troupe-session.js';
import { namingCommand } from './invocation.js';

/** What the UI is opened with besides its session. */
export interface InteractiveOptions {
  resumed?: boolean;
  workflows?: WorkflowLauncher;
  /** The command the user types for troupe (troupeCommand): the hints of troupe's own lines name it, as when the UI moves to another session. */
  troupe?: string;
}

/**
 * Opens the Ink UI on a session and saves it when the user leaves; a resumed session shows its recent
 * history first. `/workflow` moves the UI to a new workflow session: the one left is paused and saved.
 */
export async function runInteractive(session: TroupeSession, options: InteractiveOptions = {}): Promise<TroupeSession> {
  // Ink is an ES module with top-level await, which the CLI's CommonJS bundle cannot `require`: imported
  // first, it is the module the UI's own imports of it are handed (src/launch/cached-bundle.ts).
  await import('ink');
  const { runUi } = await import('../ui/run-ui.js');
  const memory = session.memorySnapshot() ? () => session.memorySnapshot()! : undefined;
  const sessions = [session];
  let last = session;
  try {
    await runUi({
      session,
      history: options.resumed ? [...session.recent()] : [],
      // Resuming re-runs a turn that was in flight; start it once the UI listens, so it streams. The first
      // frame is drawn by now: the tokenizer loads after it (a resumed turn has loaded it already).
      onReady: () => {
        session.resume();
        void session.preload().catch(() => undefined);
        favourMemory();
      },
      ...(memory ? { memory } : {}),
      ...(options.workflows ? { workflows: options.workflows } : {}),
      ...(options.troupe ? { hints: (text: string) => namingCommand(text, options.troupe!) } : {}),
      onSwitch: (from, to) => {
        sessions.push(to);
        last = to;
        void from
          .stop({
            reason: 'user_left',
            detail: `the UI moved to session ${to.id.slice(0, 8)} (${to.def.name}); continue this session with ${options.troupe ?? 'troupe'} resume ${from.id.slice(0, 8)}`,
          })
          .catch(() => undefined);
      },
    });
  } finally {
    for (const s of sessions) await s.stop().catch((error: unknown) => (s === last ? Promise.reject(error) : undefined));
  }
  return last;
}

/**
 * Tells V8 to size the heap for memory rather than speed. Ink draws the whole live area again for every
 * frame, and with V8's default sizing that garbage lets the heap grow to 3-4x what is live (an RSS of
 * 400 MB after 2,000 fast turns, with 90 MB live); sized for memory the UI stays near 200 MB, flat,
 * for CPU it only misses when turns come faster than anyone reads them.
 */
function favourMemory(): void {
  setFlagsFromString('--optimize-for-size');
}
