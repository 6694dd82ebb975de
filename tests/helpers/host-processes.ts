import { readdirSync, readFileSync } from 'node:fs';
import { alive } from './child.js';

/** The live processes of this machine (zombies left out) whose command line holds `token`, as host PIDs. */
export function processesWith(token: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      continue;
    }
    if (cmdline.includes(token) && alive(Number(name))) found.push(Number(name));
  }
  return found;
}

/** Waits (bounded) until no live process holds `token` in its command line; the ones still there after the wait. */
export async function goneAfterKill(token: string, tries = 200): Promise<number[]> {
  for (let i = 0; i < tries && processesWith(token).length > 0; i++) await new Promise((r) => setTimeout(r, 10));
  return processesWith(token);
}

/** Kills (SIGKILL) every live process holding `token`: cleanup for a test whose subject failed to. */
export function killAllWith(token: string): void {
  for (const pid of processesWith(token)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}
