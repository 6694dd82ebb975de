import { execFile, spawnSync } from 'node:child_process';
import { Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll } from 'vitest';
import { REPO_ROOT } from './team.js';

/** Result of running the built CLI. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

// One data dir per test file that imports this helper, made on first use; the hook is registered
// at import time, so it belongs to the importing file and removes the dir when that file is done.
let dataDir: string | null = null;
afterAll(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = null;
});

/** This test file's own data directory (a fresh temp dir, removed after the file's tests). */
export function testDataDir(): string {
  dataDir ??= mkdtempSync(join(tmpdir(), 'troupe-test-data-'));
  return dataDir;
}

/** Environment without any model configuration (runs default to the demo model), storing sessions in testDataDir(). */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('OPENAI_') || key.startsWith('TROUPE_')) delete env[key];
  env.TROUPE_DATA_DIR = testDataDir();
  return { ...env, ...extra };
}

/**
 * Runs the CLI's `main(argv, io)` in this process (fast, and a local test server here stays responsive):
 * stdin is the given text (empty when none), stdout and stderr are collected, the exit code returned.
 */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = cleanEnv(), input = '', options: { cwd?: string } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    stdin: Readable.from(input === '' ? [] : [input]),
    env,
    cwd: options.cwd ?? REPO_ROOT,
    interactive: false,
  });
  return { code, stdout, stderr };
}

/** Runs `node dist/cli.js ...args` as a real process (for what only a process shows: signals, pipes, exit). */
export function runCliProcess(args: string[], env: NodeJS.ProcessEnv = cleanEnv(), input?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), ...args], { env, cwd: REPO_ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
    if (input !== undefined) child.stdin?.end(input);
    else child.stdin?.end();
  });
}

/**
 * Runs the CLI's `main` from the sources (tsx) in a child process that is killed after `timeoutMs`: for a command
 * that may block the process for good (a FIFO read), which `runCli` would block the test file with. `signal` is
 * null when it ended by itself.
 */
export function runCliChild(args: string[], env: NodeJS.ProcessEnv, options: { cwd: string; timeoutMs?: number }): CliResult & { signal: NodeJS.Signals | null } {
  const cli = pathToFileURL(join(REPO_ROOT, 'src', 'cli', 'main.ts')).href;
  const script =
    `import { main } from ${JSON.stringify(cli)}; import { Readable } from 'node:stream';` +
    `const code = await main(${JSON.stringify(args)}, { stdout: process.stdout, stderr: process.stderr, stdin: Readable.from([]), env: process.env, cwd: ${JSON.stringify(options.cwd)}, interactive: false });` +
    'process.exit(code);';
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: options.timeoutMs ?? 15_000 });
  return { code: child.status ?? 1, stdout: child.stdout, stderr: child.stderr, signal: child.signal };
}
