/** Why a workflow agent has the turn: its state's input, or the user's answer to its request_users_input question. */
export type WorkflowInbox =
  | { kind: 'workflow'; text: string; state: string }
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
