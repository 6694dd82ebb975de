/** Why a workflow agent has the turn: its state's input, or the user's answer to its request_users_input question. */
export type WorkflowInbox =
  /** `user`: words the user typed while agents worked side by side, given to the next agent's turn. */
  | { kind: 'workflow'; text: string; state: string; user?: string }
  /** The user answered the agent's request_users_input call: the answer goes back as that tool's result. */
  | {
      kind: 'workflow_answer';
      text: string;
      state: string;
      toolCallId: string;
      question: string;
      /** What the agent said in the message that asked, and the call's arguments as it wrote them (absent in sessions stored before). */
      said?: string;
      arguments?: string;
      /** The input the asking turn was sent (added to the context with its words once the answer came). */
      input?: string;
    };

declare module '../../engine/inbox.js' {
  interface PolicyInboxes {
    workflow: WorkflowInbox;
  }
}

/** The text a workflow turn is given: the state's input, then the user's words that waited for it. */
export function inboxText(inbox: { text: string; user?: string }): string {
  return inbox.user === undefined ? inbox.text : `${inbox.text}${inbox.text ? '\n\n' : ''}The user says: ${inbox.user}`;
}
