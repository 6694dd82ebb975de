import type { Stats } from 'node:fs';
import { ToolError } from './tool.js';

/** What a file system entry is, in words ("a FIFO (named pipe)", "a directory", ...). */
export function kindOf(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The one rule for what the file tools and the undo log open: a regular file with a single name. A FIFO
 * could block for ever, a device never end, a socket cannot be read as a file; a file with more than
 * one hard link may be a file outside the workspace under a second name, so it is neither read, copied
 * nor written through. Throws a ToolError saying which it is.
 */
export function refuseUntouchable(stats: Stats, shown: string, verb: 'read' | 'written'): void {
  if (!stats.isFile()) throw new ToolError(`"${shown}" is ${kindOf(stats)}; only regular files can be ${verb}${stats.isDirectory() && verb === 'read' ? ' (list_files shows a directory)' : ''}`);
  if (stats.nlink > 1) throw new ToolError(`"${shown}" has ${stats.nlink} hard links (the same file may also be outside the workspace); only files with one name can be ${verb}`);
}
