import { render } from 'ink';
import { App, type AppProps } from './App.js';

/** Options to open the UI on a runner: the App's props, plus the streams (default: the process's). */
export interface RunUiOptions extends Omit<AppProps, 'columns' | 'rows' | 'onQuit'> {
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
}

/** Renders the UI (stdin must be a TTY) and resolves when the user leaves; calls in flight are aborted. */
export async function runUi(options: RunUiOptions): Promise<void> {
  const { stdin, stdout, ...props } = options;
  const instance = render(<App {...props} />, { exitOnCtrlC: false, patchConsole: true, ...(stdin ? { stdin } : {}), ...(stdout ? { stdout } : {}) });
  try {
    await instance.waitUntilExit();
  } finally {
    // Leaving is handled by the caller (the session is stopped and saved there).
  }
}
