import { setFlagsFromString } from 'node:v8';
import { invocationOf } from './cli/invocation.js';
import { main } from './cli/main.js';
import { writesSettled } from './store/writes-in-flight.js';

// The UI runs React's production build (the development build keeps a performance entry per render,
// growing without bound); React reads this when it is first imported, which happens later, lazily.
process.env.NODE_ENV ??= 'production';

const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);

// Sessions run for hours and wait on models, not on the CPU: V8 sizes the heap for memory, so resident
// memory stays flat (a 5,000-turn run: 154-163 MB, against 216 MB rising to 364 MB with default sizing).
// The UI does the same once its first frame is drawn (src/cli/interactive.ts), and `troupe run` once its
// first answer is in: sized for memory from the start, V8 collects so often while the modules load that
// the CPU to the first streamed word grows by ~15%.
const favourMemory = () => setFlagsFromString('--optimize-for-size');
if (!interactive && process.argv[2] !== 'run') favourMemory();

// A reader that closes the pipe (`troupe show | head`) ends the output, not the program with a stack
// trace: every step is in the journal by the time anything is printed, and the checkpoint writes in flight
// are waited for, so leaving quietly loses nothing and the listing tells where the run got to.
let leaving = false;
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    if (leaving) return;
    leaving = true;
    void writesSettled().finally(() => process.exit(process.exitCode ?? 0));
  });
}

// No top-level await: the bundle is a CommonJS script (scripts/build-cli.mjs), run with V8's code cache.
void main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  interactive,
  favourMemory,
  // Worked out only when a hint names it: a look along the PATH is not paid at every start.
  invocation: () => invocationOf({ script: process.argv[1], env: process.env, cwd: process.cwd() }),
}).then((code) => {
  process.exitCode = code;
  // Everything is saved by now; a socket a provider left open must not keep the process alive.
  setTimeout(() => process.exit(code), 2_000).unref();
});
