#!/usr/bin/env node
import { main } from './cli/main.js';

// The UI runs React's production build (the development build keeps a performance entry per render,
// growing without bound); React reads this when it is first imported, which happens later, lazily.
process.env.NODE_ENV ??= 'production';

// A reader that closes the pipe (`troupe show | head`) ends the output, not the program with a stack
// trace: everything is saved by the time anything is printed, so leaving quietly loses nothing.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
});
process.exitCode = code;
// Everything is saved by now; a socket a provider left open must not keep the process alive.
setTimeout(() => process.exit(code), 2_000).unref();
