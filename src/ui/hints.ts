import type { SessionState } from '../engine/session.js';
import { columnsOf } from './columns.js';

/** The first of the wordings (longest first) that fits `width` columns; the shortest when none does. */
function fitting(width: number, ...wordings: string[]): string {
  return wordings.find((w) => columnsOf(w) <= width) ?? wordings.at(-1)!;
}

/** The one line telling the user what they can do now, from the session status, worded to fit `width` columns. */
export function hintFor(s: SessionState, width = Number.POSITIVE_INFINITY): string {
  if (s.workflow !== undefined && s.workflow !== null) return workflowHint(s, width);
  switch (s.status) {
    case 'idle':
      return fitting(
        width,
        'Type a brief for the team and press Enter (e.g. a game idea) · !help lists commands',
        'Type a brief for the team and press Enter · !help lists commands',
        'Type a brief and press Enter · !help',
        'Type a brief · !help',
      );
    case 'running':
      return fitting(width, 'Type to interject · !handoff <persona> · !rework [reason] · !help · !quit', 'Type to interject · !handoff <persona> · !help · !quit', 'Type to interject · !help · !quit');
    case 'ended':
      return fitting(width, 'Session over · !history !cost !memory to look back · !quit to leave', 'Session over · !history · !cost · !quit', 'Over · !history · !quit');
    case 'awaiting_user':
      switch (s.awaiting?.code) {
        case 'gate':
          return fitting(
            width,
            'Approval gate: !approve to take it · !rework <reason> · !handoff <persona> · or type a reply',
            'Approval gate: !approve · !rework <reason> · !handoff <persona> · or reply',
            'Gate: !approve · !rework <reason> · or reply',
            'Gate: !approve · !rework · reply',
          );
        case 'complete':
          return fitting(
            width,
            'The team says it is done: !approve to accept and end · or type feedback to go on',
            'The team says it is done: !approve to end · or type feedback',
            'Done: !approve to end · or type feedback',
            'Done: !approve · or feedback',
          );
        case 'limit':
          return fitting(width, 'A limit was reached: !continue to go on · type a reply · !quit', 'Limit reached: !continue · reply · !quit', 'Limit: !continue · reply · !quit');
        default:
          return fitting(width, 'Your turn: type a reply · !continue · !handoff <persona> · !help', 'Your turn: type a reply · !continue · !help', 'Your turn: reply · !continue · !help');
      }
  }
}

/** The hint while a workflow runs. */
function workflowHint(s: SessionState, width: number): string {
  switch (s.status) {
    case 'idle':
      return fitting(width, 'Type the workflow input and press Enter · !help lists commands', 'Type the workflow input · !help');
    case 'running':
      return fitting(
        width,
        'Type to send the workflow input (its resume state, else it starts over) · !status · !quit',
        'Type to send the workflow input · !status · !quit',
        'Type input · !status · !quit',
      );
    case 'ended':
      return fitting(
        width,
        'Workflow over · /workflow <name> <input> runs another · !history · !quit to leave',
        'Workflow over · /workflow <name> runs another · !quit',
        'Workflow over · !history · !quit',
      );
    case 'awaiting_user':
      return s.awaiting?.code === 'question'
        ? fitting(width, 'The workflow asks you: type your answer and press Enter', 'Type your answer and press Enter')
        : fitting(width, 'The workflow paused: !continue to go on · type input · !quit', 'Paused: !continue · type input · !quit');
  }
}
