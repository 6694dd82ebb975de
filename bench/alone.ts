import { spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * Runs a bench file in a Node process of its own (the file measures when it is the main module): figures of
 * memory and of a busy event loop would otherwise count what the benches before it left in this process.
 */
export async function runAlone(file: string): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: join(import.meta.dirname, '..'), stdio: ['ignore', 'inherit', 'inherit'] });
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  if (code !== 0) throw new Error(`${file} exited ${code}`);
}
