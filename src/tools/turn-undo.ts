import { copyFile, mkdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { confine } from './confine.js';
import type { Toolset } from './toolset.js';

/** The tools that change files; what they touch is saved before they run. */
const WRITERS = new Set(['write_file', 'edit_file']);

const UndoLogSchema = z.object({ version: z.literal(1), turnId: z.string(), saved: z.array(z.object({ path: z.string(), copy: z.string().nullable() })) });
type UndoLog = z.infer<typeof UndoLogSchema>;

/**
 * A tool turn's undo log: before write_file or edit_file changes a file for the first time in a turn, the
 * file as it was (or that it did not exist) is saved beside the workspace. A turn whose answer was
 * applied drops the log. A turn that never finished (the process died) leaves it, and when the resumed
 * session runs that same turn again (same turn id) the files are put back first, so the re-run starts
 * from the workspace its first run found; a log of another turn is only dropped (that turn's answer may
 * have been applied just before the crash). Files made by run_command are not tracked.
 */
export class TurnUndo {
  private log: UndoLog = { version: 1, turnId: '', saved: [] };

  constructor(
    /** The workspace (a real path). */
    private readonly root: string,
    /** Where the log and the saved copies live (outside the workspace). */
    private readonly store: string,
  ) {}

  private get logFile(): string {
    return join(this.store, 'undo.json');
  }

  /** Before `turnId` runs: puts back what an unfinished run of that same turn changed; returns how many files it restored. */
  async restore(turnId: string): Promise<number> {
    const raw = await readFile(this.logFile, 'utf8').catch(() => null);
    if (raw === null) return 0;
    let parsed: ReturnType<typeof UndoLogSchema.safeParse>;
    try {
      parsed = UndoLogSchema.safeParse(JSON.parse(raw));
    } catch {
      parsed = UndoLogSchema.safeParse(null);
    }
    const again = parsed.success && parsed.data.turnId === turnId;
    if (parsed.success && again) {
      for (const entry of [...parsed.data.saved].reverse()) {
        const target = join(this.root, entry.path);
        if (entry.copy === null) await unlink(target).catch(() => undefined);
        else {
          await mkdir(dirname(target), { recursive: true });
          await copyFile(join(this.store, entry.copy), target);
        }
      }
    }
    await rm(this.store, { recursive: true, force: true });
    return parsed.success && again ? parsed.data.saved.length : 0;
  }

  /** Starts a turn's log. */
  async begin(turnId: string): Promise<void> {
    this.log = { version: 1, turnId, saved: [] };
    await mkdir(this.store, { recursive: true });
    await writeFile(this.logFile, JSON.stringify(this.log));
  }

  /** Saves a file before a tool first changes it in this turn (nothing for paths the tool will refuse). */
  async before(input: unknown): Promise<void> {
    const path = typeof input === 'object' && input !== null ? (input as { path?: unknown }).path : undefined;
    if (typeof path !== 'string') return;
    const confined = await confine(this.root, path).catch(() => null);
    if (!confined || this.log.saved.some((s) => s.path === confined.shown)) return;
    let copy: string | null = null;
    if (confined.exists) {
      copy = `f${this.log.saved.length}`;
      // A directory or something else that is not a file is left to the tool to refuse.
      if (!(await copyFile(confined.real, join(this.store, copy)).then(() => true, () => false))) return;
    }
    this.log.saved.push({ path: confined.shown, copy });
    await writeFile(this.logFile, JSON.stringify(this.log));
  }

  /** The turn's answer was applied: its changes stay. */
  async commit(): Promise<void> {
    await rm(this.store, { recursive: true, force: true });
  }

  /** The toolset with each file-changing call recorded in this log first. */
  wrap(toolset: Toolset): Toolset {
    return {
      ...toolset,
      has: (name) => toolset.has(name),
      summarize: (call) => toolset.summarize(call),
      run: async (call, signal) => {
        if (WRITERS.has(call.name)) {
          let args: unknown = null;
          try {
            args = JSON.parse(call.arguments);
          } catch {
            // Bad JSON: the tool answers it with an error; nothing to save.
          }
          await this.before(args);
        }
        return toolset.run(call, signal);
      },
    };
  }
}
