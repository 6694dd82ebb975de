import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { readPrivateFile } from '../tools/private-file.js';
import { cacheDirTrusted } from './cache-trust.js';

/** Where the CLI keeps V8's compiled code for its bundle, or null when the cache is off. */
export function codeCacheDir(env: NodeJS.ProcessEnv): string | null {
  const setting = env.TROUPE_COMPILE_CACHE;
  if (setting === '0' || setting === 'off') return null;
  // Never relative: a folder of the working directory's could come with a cloned repository (its code then run).
  if (setting) return isAbsolute(setting) ? setting : null;
  // Per user, never a shared temporary folder: whoever can write the cache chooses the code the CLI runs.
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.cache');
  return join(base, 'troupe', 'compile');
}

/**
 * The cache file for one build of the bundle, one Node binary and one command: V8 takes cached code only
 * from the same V8 version and flags, and a command caches the functions it compiled by the time it saved.
 */
export function codeCacheFile(dir: string, build: string, command: string): string {
  return join(dir, `${process.version}-${process.arch}`, build, `${command}.bin`);
}

// Each file starts with a mark, the checksum and the length of the code after it. V8 checks the header of
// cached code but not every byte: a damaged byte deep inside (a bad disk sector) was measured to abort the
// process (SIGTRAP) at every start, so only a file whose checksum holds is handed to V8.
const MARK = 0x31435254; // "TRC1"
const HEADER = 12;
// The code of a 2 MB bundle caches in a few MB: a file far past that was not written by troupe.
const MAX_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The cached code in a file, or undefined when there is none, it cannot be read, it is not whole, or someone
 * other than this user could have written it (see cache-trust.ts: V8 would run their code).
 */
export function readCodeCache(file: string): Buffer | undefined {
  const bytes = readPrivateFile(file, MAX_CACHE_BYTES);
  if (bytes === undefined) return undefined;
  if (bytes.length < HEADER || bytes.readUInt32LE(0) !== MARK || bytes.readUInt32LE(8) !== bytes.length - HEADER) return undefined;
  const code = bytes.subarray(HEADER);
  return crc32(code) === bytes.readUInt32LE(4) ? code : undefined;
}

const STALE_MS = 7 * 24 * 3600 * 1000;

// The deepest of `dir` and its parents that exists.
function existingAncestor(dir: string): string {
  let at = dir;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return at;
}

/**
 * Writes cached code whole (a temporary file renamed over the old one, so a reader never sees half a file);
 * the caches of other builds last written over a week ago are removed. A cache that cannot be written is skipped,
 * and so is one in a folder others could write (it would not be read).
 */
export function writeCodeCache(file: string, data: Buffer, now = Date.now()): void {
  try {
    const buildDir = join(file, '..');
    // Nothing is made, not even a folder, under one others could write; then the folders made are checked too.
    if (!cacheDirTrusted(existingAncestor(buildDir))) return;
    mkdirSync(buildDir, { recursive: true, mode: 0o700 });
    if (!cacheDirTrusted(buildDir)) return;
    const temporary = `${file}.${process.pid}.tmp`;
    const header = Buffer.alloc(HEADER);
    header.writeUInt32LE(MARK, 0);
    header.writeUInt32LE(crc32(data), 4);
    header.writeUInt32LE(data.length, 8);
    // 'wx': a new file, never through a link planted at its name (one a killed start left with this pid goes first).
    rmSync(temporary, { force: true });
    writeFileSync(temporary, Buffer.concat([header, data]), { mode: 0o600, flag: 'wx' });
    renameSync(temporary, file);
    const versionDir = join(buildDir, '..');
    for (const other of readdirSync(versionDir)) {
      const path = join(versionDir, other);
      if (path !== buildDir && now - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
    }
  } catch {
    // A read-only or full disk costs the next start its compile time, nothing else.
  }
}
