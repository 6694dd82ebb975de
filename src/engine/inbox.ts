import { z } from 'zod';

/**
 * The message the next agent receives: why it has the turn and what it is asked, named by `kind`. The
 * kinds are its policy's (a team's handoff or rework, a workflow state's input): a policy module adds its
 * own with `declare module '…/engine/inbox.js' { interface PolicyInboxes { … } }`. The core carries an
 * inbox from the step that chose the agent to the call, and reads only its kind.
 */
export const InboxSchema = z.object({ kind: z.string() }).catchall(z.unknown()) as unknown as z.ZodType<Inbox>;

/** The inbox kinds of each policy, by policy. */
// biome-ignore lint/suspicious/noEmptyInterface: an interface, so policy modules can add to it (declaration merging); a type alias cannot be
export interface PolicyInboxes {}

/** The message the next agent receives. */
export type Inbox = PolicyInboxes[keyof PolicyInboxes];
