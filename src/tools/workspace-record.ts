import { z } from 'zod';
import { SnapshotSchema } from './workspace-snapshot.js';
import { lazySchema } from '../config/lazy-schema.js';

// The record kept beside each workspace: read by listings (the CLI's summary, deliverables) without the code that makes workspaces.

/** A workspace as recorded next to it (`<root>/workspaces/<name>.json`), so a resumed session can reopen it. */
export const WorkspaceSchema = lazySchema(() =>
  z.object({
    version: z.literal(1),
    name: z.string(),
    /** `git`: a clone of the starting directory's repository; `copy`: a copy of the starting directory; `empty`: a new directory. */
    kind: z.enum(['git', 'copy', 'empty']),
    /** The agent's working directory (a real path). */
    dir: z.string(),
    /** The directory created for it: `dir`, or for a clone its top (dir may be a subdirectory of it). */
    home: z.string(),
    /** The repository a git workspace was made from. */
    repo: z.string().optional(),
    /** A git workspace made as a clone; absent in records of earlier versions, whose git workspaces were worktrees of `repo`. */
    clone: z.literal(true).optional(),
    from: z.string().nullable(),
    /** The files as they were when the workspace was made. */
    baseline: SnapshotSchema,
  }),
);
/** An implementer's workspace. */
export type Workspace = z.infer<typeof WorkspaceSchema>;

/**
 * Largest workspace record read. A record holds its baseline snapshot: up to 32 MB of text kept for diffs (more
 * once escaped as JSON) and a hash for each of 20,000 files (DEFAULT_SNAPSHOT_LIMITS); a cap of 16 MiB left a
 * workspace started from 20 MB of text out of every listing. A record past it is not one troupe wrote.
 */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;
