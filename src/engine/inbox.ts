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
  /** A workflow state sends its agent this (the state's input). */
  z.object({ kind: z.literal('workflow'), text, state: z.string() }),
  /** The user answered the agent's request_users_input call: the answer goes back as that tool's result. */
  z.object({ kind: z.literal('workflow_answer'), text, state: z.string(), toolCallId: z.string(), question: z.string() }),
]);

/** The message the next agent receives. */
export type Inbox = z.infer<typeof InboxSchema>;
