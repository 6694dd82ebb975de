import { z } from 'zod';

const text = z.string();

/** The message the next agent receives: why it has the turn and what it is asked. */
export const InboxSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('brief'), text }),
  z.object({ kind: z.literal('handoff'), from: z.string(), text, approved: z.boolean() }),
  z.object({ kind: z.literal('rework'), from: z.string(), reason: z.string(), byUser: z.boolean() }),
  z.object({ kind: z.literal('detour'), from: z.string(), text, reason: z.string() }),
  z.object({ kind: z.literal('detour_return'), from: z.string(), text }),
  z.object({ kind: z.literal('user_requested'), text }),
  z.object({ kind: z.literal('interjection'), text }),
  z.object({ kind: z.literal('consult'), from: z.string(), text }),
  z.object({ kind: z.literal('consult_answer'), from: z.string(), text }),
  z.object({ kind: z.literal('user_reply'), text }),
  z.object({ kind: z.literal('continue'), text }),
]);

/** The message the next agent receives. */
export type Inbox = z.infer<typeof InboxSchema>;
