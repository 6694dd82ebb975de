import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './team.js';

/** Result of running the built CLI. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Environment without any model configuration, so runs default to the demo model. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('OPENAI_') || key.startsWith('TROUPE_')) delete env[key];
  env.TROUPE_DATA_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'troupe-test-data');
  return { ...env, ...extra };
}

/** Runs `node dist/cli.js ...args` asynchronously (a local test server in this process stays responsive). */
export function runCli(args: string[], env: NodeJS.ProcessEnv = cleanEnv(), input?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), ...args], { env, cwd: REPO_ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
    if (input !== undefined) child.stdin?.end(input);
    else child.stdin?.end();
  });
}
