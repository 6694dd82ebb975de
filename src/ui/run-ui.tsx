import { render } from 'ink';
import { App, type AppProps } from './App.js';
import { BRACKETED_PASTE } from './line-editor.js';

/** Options to open the UI on a runner: the App's props, plus the streams (default: the process's). */
export interface RunUiOptions extends Omit<AppProps, 'columns' | 'rows' | 'onQuit'> {
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
}

/** Renders the UI (stdin must be a TTY) and resolves when the user leaves; calls in flight are aborted. */
export async function runUi(options: RunUiOptions): Promise<void> {
  const { stdin, stdout, ...props } = options;
  const out = stdout ?? process.stdout;
  // Pasted text arrives marked, so a multi-line paste becomes one message instead of one per line.
  if (out.isTTY) out.write(BRACKETED_PASTE.on);
  const instance = render(<App {...props} />, { exitOnCtrlC: false, patchConsole: true, ...(stdin ? { stdin } : {}), ...(stdout ? { stdout } : {}) });
  try {
    await instance.waitUntilExit();
  } finally {
    if (out.isTTY) out.write(BRACKETED_PASTE.off);
    // Leaving is handled by the caller (the session is stopped and saved there).
  }
}
