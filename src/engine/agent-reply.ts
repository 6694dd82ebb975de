import { z } from 'zod';
import { lazySchema } from '../config/lazy-schema.js';

/** A tool call an agent made: its name and parsed arguments (parsing tools are recorded, not executed). */
export const ToolCallRecordSchema = lazySchema(() => z.object({ id: z.string().optional(), name: z.string(), arguments: z.unknown() }));
/** A recorded tool call. */
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>;

/** The files a branch's agent changed in its workspace, and the diff rendered for reviewers. */
export const ChangesSchema = lazySchema(() =>
  z.object({
    files: z.array(z.object({ path: z.string(), status: z.enum(['added', 'modified', 'deleted']) })),
    diff: z.string(),
  }),
);
/** The files a branch changed. */
export type Changes = z.infer<typeof ChangesSchema>;
