import type React from 'react';
import { useState } from 'react';
import { render } from 'ink';
import { App, type AppProps } from './App.js';
import { BRACKETED_PASTE } from './line-editor.js';
import type { TroupeSession } from '../session/troupe-session.js';

/** Options to open the UI on a session: the App's props, plus the streams (default: the process's). */
export interface RunUiOptions extends Omit<AppProps, 'columns' | 'rows' | 'onQuit' | 'onSwitch'> {
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  /** The UI moved from one session to another (`/workflow`): the caller lets go of the one left. */
  onSwitch?: (from: TroupeSession, to: TroupeSession) => void;
}

/** The App on the session the user is in: `/workflow` moves it to the workflow's session, `!rewind <step>` to a fork. */
export function Shell({ onSwitch, ...props }: Omit<RunUiOptions, 'stdin' | 'stdout'>): React.JSX.Element {
  const [current, setCurrent] = useState<{ session: TroupeSession; first: boolean; resume?: boolean }>({ session: props.session, first: true });
  const switchTo = (next: TroupeSession, resume?: boolean) => {
    onSwitch?.(current.session, next);
    setCurrent({ session: next, first: false, resume: resume === true });
  };
  // A workflow session the UI moved to starts fresh; a fork (!rewind) shows its history and goes on once the UI listens.
  const fork = current.resume ? { history: [...current.session.recent()], onReady: () => current.session.resume() } : {};
  const own = current.first ? props : { session: current.session, workflows: props.workflows, hints: props.hints, ...fork };
  return <App key={current.session.id} {...own} session={current.session} onSwitch={switchTo} />;
}

/** Renders the UI (stdin must be a TTY) and resolves when the user leaves; calls in flight are aborted. */
export async function runUi(options: RunUiOptions): Promise<void> {
  const { stdin, stdout, ...props } = options;
  const out = stdout ?? process.stdout;
  // Pasted text arrives marked, so a multi-line paste becomes one message instead of one per line.
  if (out.isTTY) out.write(BRACKETED_PASTE.on);
  const instance = render(<Shell {...props} />, { exitOnCtrlC: false, patchConsole: true, ...(stdin ? { stdin } : {}), ...(stdout ? { stdout } : {}) });
  try {
    await instance.waitUntilExit();
  } finally {
    if (out.isTTY) out.write(BRACKETED_PASTE.off);
    // Leaving is handled by the caller (the sessions are stopped and saved there).
  }
}
