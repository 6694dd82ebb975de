import { execFileSync } from 'node:child_process';

/**
 * git run in `cwd` as a test user (name, email and the main branch given on the command line), its standard
 * output returned; with `home`, HOME is that directory and the environment holds only PATH, so the machine's
 * git config plays no part.
 */
export function gitIn(cwd: string, home?: string): (...args: string[]) => string {
  const env = home === undefined ? undefined : { PATH: process.env.PATH!, HOME: home };
  return (...args) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(env ? { env } : {}),
    });
}
