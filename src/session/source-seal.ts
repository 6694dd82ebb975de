import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { SessionDocument } from '../store/session-file.js';
import { readPrivateFile } from '../tools/private-file.js';

/** What a session document says it was started with: its team directory and the file its workflow was loaded from. */
export interface SessionSources {
  teamDir: string;
  workflowSource: string | null;
}

const KEY_BYTES = 32;

/** Where this user's seal key is kept: `$XDG_CONFIG_HOME/troupe/seal-key`, else `~/.config/troupe/seal-key` (never the data dir). */
export function sealKeyPath(env: Record<string, string | undefined>): string {
  // The key is the OS user's, as the home directory is: a session given an environment of its own without XDG_CONFIG_HOME (an embedder's) still finds the process's.
  const xdg = env.XDG_CONFIG_HOME ?? process.env.XDG_CONFIG_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.config'), 'troupe', 'seal-key');
}

// Written whole beside its name, then linked to it: a process racing to make it reads one key or the other's, never half
// of one (or, in the instant both names hold it, none: two links are refused, and the next seal reads it again).
function makeKey(path: string): void {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(temp, randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return;
  } finally {
    rmSync(temp, { force: true });
  }
}

const keys = new Map<string, Buffer | null>();

const readKey = (path: string): Buffer | null => {
  const key = readPrivateFile(path, KEY_BYTES);
  return key?.length === KEY_BYTES ? key : null;
};

/** This user's seal key (made on first use), or null when it cannot be read or made (then nothing is sealed, and nothing unsealed trusted). */
export function sealKey(env: Record<string, string | undefined>): Buffer | null {
  const path = sealKeyPath(env);
  if (!keys.has(path) || keys.get(path) === null) {
    // A key someone else could read or write would let them seal a document (see readPrivateFile).
    let key = readKey(path);
    if (!key) {
      makeKey(path);
      key = readKey(path);
    }
    keys.set(path, key);
  }
  return keys.get(path)!;
}

/**
 * The seal of a session's sources under this user's key: what a document keeps (`seal`) so that resuming trusts
 * its team directory and workflow source as this user's troupe recorded them, not as anyone editing the data dir
 * (a cloned repository's `.troupe/`) wrote them. Null when there is no key.
 */
export function sealSources(sources: SessionSources, env: Record<string, string | undefined>): string | null {
  const key = sealKey(env);
  return key
    ? createHmac('sha256', key)
        .update(JSON.stringify([sources.teamDir, sources.workflowSource]))
        .digest('hex')
    : null;
}

/** Whether a document's seal is this user's for these sources. */
export function sealHolds(seal: string | undefined, sources: SessionSources, env: Record<string, string | undefined>): boolean {
  if (seal === undefined) return false;
  const expected = sealSources(sources, env);
  if (expected === null || seal.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(seal), Buffer.from(expected));
}

/** Whether a stored document's seal is this user's for the team directory and workflow source it names (the plan's own source: what its checks read). */
export function documentSealed(doc: Pick<SessionDocument, 'seal' | 'team' | 'workflow'>, env: Record<string, string | undefined>): boolean {
  return sealHolds(doc.seal, { teamDir: doc.team.dir, workflowSource: doc.workflow?.plan?.source ?? doc.workflow?.source ?? null }, env);
}
