import React from 'react';
import { render } from 'ink';
import type { MemorySource } from '../commands/memory-source.js';
import type { Runner } from '../runtime/runner.js';
import type { TroupeEvent } from '../engine/event-map.js';
import { App } from './App.js';

/** Options to open the UI on a runner. */
export interface RunUiOptions {
  runner: Runner;
  model: { label: string; offline?: boolean };
  memory?: MemorySource;
  sessions?: () => string[];
  history?: readonly TroupeEvent[];
  onReady?: () => void;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
}

/** Renders the UI (stdin must be a TTY) and resolves when the user leaves; calls in flight are aborted. */
export async function runUi(options: RunUiOptions): Promise<void> {
  const { runner } = options;
  const instance = render(
    <App runner={runner} model={options.model} {...(options.memory ? { memory: options.memory } : {})} {...(options.sessions ? { sessions: options.sessions } : {})} {...(options.history ? { history: options.history } : {})} {...(options.onReady ? { onReady: options.onReady } : {})} />,
    { exitOnCtrlC: false, patchConsole: true, ...(options.stdin ? { stdin: options.stdin } : {}), ...(options.stdout ? { stdout: options.stdout } : {}) },
  );
  try {
    await instance.waitUntilExit();
  } finally {
    runner.abortAll();
  }
}
