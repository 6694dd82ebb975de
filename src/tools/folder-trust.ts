import { realpathSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';

// Whoever can change a folder can rename what is in it and put anything (a link) in its place: a path is only as
// safe as every folder on it. The code cache (launch/cache-trust.ts) and the command jail's workspace both ask.

// A folder others may write into but not rename or remove entries of (/tmp: root's, sticky): what is in it stays its owner's.
function stickyRoot(stats: Stats): boolean {
  return stats.uid === 0 && (stats.mode & 0o1000) !== 0;
}

/** Whose changes a folder may be open to: this user's `uid`, and `gid` when a folder writable by that group is fine (a user's private group). */
export interface FolderOwner {
  uid: number;
  gid?: number;
}

/**
 * The first folder from `dir` (followed to its real path) up to `/` that someone other than `owner` or root could
 * change: not owned by one of them, or writable by others (root's sticky /tmp excepted), or by a group other than
 * `owner.gid`; null when there is none. A folder that cannot be read is named too.
 */
export function folderOthersCanChange(dir: string, owner: FolderOwner): string | null {
  let at: string;
  try {
    at = realpathSync(dir);
  } catch {
    return dir;
  }
  for (;;) {
    let stats: Stats;
    try {
      stats = statSync(at);
    } catch {
      return at;
    }
    const writers = owner.gid !== undefined && stats.gid === owner.gid ? stats.mode & 0o002 : stats.mode & 0o022;
    const mine = (stats.uid === owner.uid || stats.uid === 0) && writers === 0;
    if (!stats.isDirectory() || !(mine || stickyRoot(stats))) return at;
    const up = dirname(at);
    if (up === at) return null;
    at = up;
  }
}
