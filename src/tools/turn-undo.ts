import { constants } from 'node:fs';
import { mkdir, open, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { z } from 'zod';
import { confine, refuseGitInternals } from './confine.js';
import { ownFolder } from './own-folder.js';
import { inParentOf, MissingOnTheWay, openDirAt } from './pinned-dir.js';
import { bytes } from './limits.js';
import { copyContent, openLeaf, readLeaf, removeLeaf, replaceLeaf } from './safe-fs.js';
import { toolFailure, ToolError } from './tool.js';
import type { ToolOutcome, Toolset } from './toolset.js';

/** The tools that change files; what they touch is saved before they run. */
const WRITERS = new Set(['write_file', 'edit_file']);

// A copy's name is only ever f<n>, so a log that was tampered with cannot name a file outside the store.
const UndoLogSchema = z.object({
  version: z.literal(1),
  turnId: z.string(),
  saved: z.array(
    z.object({
      path: z.string(),
      copy: z
        .string()
        .regex(/^f\d+$/)
        .nullable(),
    }),
  ),
});
type UndoLog = z.infer<typeof UndoLogSchema>;

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/**
 * Most bytes the undo log copies in one turn. A command can make a sparse file of a terabyte with one system
 * call and no disk; saving it before a write would have troupe write all of it. A write over more is refused.
 */
export const MAX_UNDO_BYTES = 256_000_000;

/** Largest undo log read: a path and a copy's name per file a turn changed (a log past it is dropped, as a damaged one is). */
const MAX_LOG_BYTES = 16 * 1024 * 1024;

/** What a restore did: how many files it put back, and which it could not (each with the reason). */
export interface Restored {
  restored: number;
  refused: string[];
}

/**
 * A tool turn's undo log: before write_file or edit_file changes a file for the first time in a turn, the
 * file as it was (or that it did not exist) is saved beside the workspace. A turn whose answer was
 * applied drops the log. A turn that never finished (the process died) leaves it, and when the resumed
 * session runs that same turn again (same turn id) the files are put back first, so the re-run starts
 * from the workspace its first run found; a log of another turn is only dropped (that turn's answer may
 * have been applied just before the crash). Files made by run_command are not tracked.
 *
 * Saving and putting back go through the pinned walk (pinned-dir.ts) like the file tools: nothing is
 * followed through a link, a FIFO, socket, device or multiply-linked file is refused before it is opened
 * (the call is then refused too: a change that could not be undone is not made), and a file is put back
 * by renaming a new file over whatever the agent left at its name, never by writing through it.
 */
export class TurnUndo {
  private log: UndoLog = { version: 1, turnId: '', saved: [] };
  /** Bytes copied into the store in this turn. */
  private savedBytes = 0;

  constructor(
    /** The workspace (a real path). */
    private readonly root: string,
    /** Where the log and the saved copies live (outside the workspace, see undo-store.ts). */
    private readonly store: string,
    /** Most bytes copied in one turn (MAX_UNDO_BYTES). */
    private readonly maxBytes = MAX_UNDO_BYTES,
  ) {}

  private get logFile(): string {
    return join(this.store, 'undo.json');
  }

  // The log's folder and the one holding it (`.undo`) are troupe's own: never links (see ownFolder).
  private async ownStore(): Promise<void> {
    await ownFolder(dirname(this.store));
    await ownFolder(this.store);
  }

  /** Before `turnId` runs: puts back what an unfinished run of that same turn changed, then drops the log. */
  async restore(turnId: string): Promise<Restored> {
    await this.ownStore();
    const raw = await this.readLog();
    const done: Restored = { restored: 0, refused: [] };
    if (raw === null) return done;
    let parsed: ReturnType<typeof UndoLogSchema.safeParse>;
    try {
      parsed = UndoLogSchema.safeParse(JSON.parse(raw));
    } catch {
      parsed = UndoLogSchema.safeParse(null);
    }
    if (parsed.success && parsed.data.turnId === turnId) {
      for (const entry of [...parsed.data.saved].reverse()) {
        try {
          await this.putBack(entry.path, entry.copy);
          done.restored += 1;
        } catch (error) {
          if (!(error instanceof ToolError)) throw error;
          done.refused.push(`${entry.path} (${error.message})`);
        }
      }
    }
    await rm(this.store, { recursive: true, force: true });
    return done;
  }

  // The log as a regular file of one name, read by the pinned walk: a hand-made data dir's undo.json linked to
  // /dev/tty or a FIFO blocked the resume for good, one linked to /dev/zero read 512 MiB. Null when there is none
  // (or it is not a file troupe wrote).
  private async readLog(): Promise<string | null> {
    const dir = await openDirAt(this.store, '').catch(() => null);
    if (dir === null) return null;
    try {
      return (await readLeaf(dir, 'undo.json', MAX_LOG_BYTES)).toString('utf8');
    } catch {
      return null;
    } finally {
      await dir.close();
    }
  }

  /** Puts one file back as it was: its saved copy, or (`copy` null) nothing at its name. */
  private async putBack(path: string, copy: string | null): Promise<void> {
    if (copy === null) {
      // A directory on the way that is gone took the file with it.
      await inParentOf(this.root, path, {}, (dir, name) => removeLeaf(dir, name)).catch((error: unknown) => {
        if (!(error instanceof MissingOnTheWay)) throw error;
      });
      return;
    }
    // A regular file of one name in the store, opened without blocking: a FIFO named as a copy in a hand-made log
    // blocked the resume for good.
    const store = await openDirAt(this.store, '');
    const source = await openLeaf(store, copy, 'read')
      .then((opened) => opened.handle)
      .catch((error: unknown) => {
        throw new ToolError(`its saved copy cannot be opened: ${error instanceof ToolError ? error.message : ((error as NodeJS.ErrnoException).code ?? String(error))}`);
      })
      .finally(() => store.close());
    try {
      await inParentOf(this.root, path, { create: true }, (dir, name) => replaceLeaf(dir, name, (handle) => copyContent(source, handle), 'any'));
    } finally {
      await source.close();
    }
  }

  /** Starts a turn's log. */
  async begin(turnId: string): Promise<void> {
    this.log = { version: 1, turnId, saved: [] };
    this.savedBytes = 0;
    // A fresh folder: nothing a hand-made data dir left in it (a link at undo.json) is written through.
    await this.ownStore();
    await rm(this.store, { recursive: true, force: true });
    await mkdir(this.store, { recursive: true });
    await writeFile(this.logFile, JSON.stringify(this.log));
  }

  /** Saves a file before a tool first changes it in this turn; throws the ToolError the tool would give for a path it refuses. */
  async before(input: unknown): Promise<void> {
    const path = typeof input === 'object' && input !== null ? (input as { path?: unknown }).path : undefined;
    if (typeof path !== 'string') return;
    const confined = await confine(this.root, path);
    refuseGitInternals(confined);
    if (this.log.saved.some((s) => s.path === confined.shown)) return;
    let copy: string | null = null;
    if (confined.exists) {
      const name = `f${this.log.saved.length}`;
      await inParentOf(this.root, relative(this.root, confined.real), {}, async (dir, leaf) => {
        const { handle, stats } = await openLeaf(dir, leaf, 'written');
        try {
          if (this.savedBytes + stats.size > this.maxBytes) {
            throw new ToolError(
              `"${confined.shown}" is ${bytes(stats.size)}: too large to save for undo before it is changed (at most ${bytes(this.maxBytes)} a turn); remove it with run_command first`,
            );
          }
          this.savedBytes += stats.size;
          const out = await open(join(this.store, name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
          try {
            await copyContent(handle, out);
          } finally {
            await out.close();
          }
        } finally {
          await handle.close();
        }
      });
      copy = name;
    }
    this.log.saved.push({ path: confined.shown, copy });
    await writeFile(this.logFile, JSON.stringify(this.log));
  }

  /** The turn's answer was applied: its changes stay. */
  async commit(): Promise<void> {
    await this.ownStore();
    await rm(this.store, { recursive: true, force: true });
  }

  /** The toolset with each file-changing call recorded in this log first; a call whose file cannot be saved is refused. */
  wrap(toolset: Toolset): Toolset {
    return {
      ...toolset,
      has: (name) => toolset.has(name),
      summarize: (call) => toolset.summarize(call),
      run: async (call, signal) => {
        if (WRITERS.has(call.name)) {
          const refused = await this.saveFor(call);
          if (refused) return { ...toolFailure(refused), tool: call.name, summary: toolset.summarize(call) } satisfies ToolOutcome;
        }
        return toolset.run(call, signal);
      },
    };
  }

  /** Saves what a writer call will change; the reason it cannot, or null. */
  private async saveFor(call: { arguments: string }): Promise<string | null> {
    let args: unknown = null;
    try {
      args = JSON.parse(call.arguments);
    } catch {
      return null; // Bad JSON: the tool answers it with an error; nothing to save.
    }
    try {
      await this.before(args);
      return null;
    } catch (error) {
      if (error instanceof ToolError) return error.message;
      return `the file could not be saved for undo first (${(error as NodeJS.ErrnoException).code ?? String(error)}); it is left unchanged`;
    }
  }
}
