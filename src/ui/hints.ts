import type { SessionState } from '../engine/session.js';

/** The one line telling the user what they can do now, from the session status. */
export function hintFor(s: SessionState): string {
  if (s.workflow !== undefined && s.workflow !== null) return workflowHint(s);
  switch (s.status) {
    case 'idle':
      return 'Type a brief for the team and press Enter (e.g. a game idea) · !help lists commands';
    case 'running':
      return 'Type to interject · !handoff <persona> · !rework [reason] · !help · !quit';
    case 'ended':
      return 'Session over · !history !cost !memory to look back · !quit to leave';
    case 'awaiting_user':
      switch (s.awaiting?.code) {
        case 'gate':
          return 'Approval gate: !approve to take it · !rework <reason> · !handoff <persona> · or type a reply';
        case 'complete':
          return 'The team says it is done: !approve to accept and end · or type feedback to go on';
        case 'limit':
          return 'A limit was reached: !continue to go on · type a reply · !quit';
        default:
          return 'Your turn: type a reply · !continue · !handoff <persona> · !help';
      }
  }
}

/** The hint while a workflow runs. */
function workflowHint(s: SessionState): string {
  switch (s.status) {
    case 'idle':
      return 'Type the workflow input and press Enter · !help lists commands';
    case 'running':
      return 'Type to send the workflow input (its resume state, else it starts over) · !status · !quit';
    case 'ended':
      return 'Workflow over · /workflow <name> <input> runs another · !history · !quit to leave';
    case 'awaiting_user':
      return s.awaiting?.code === 'question' ? 'The workflow asks you: type your answer and press Enter' : 'The workflow paused: !continue to go on · type input · !quit';
  }
}
