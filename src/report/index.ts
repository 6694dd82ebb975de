/** Reports: pure functions from a session's events (and its definition) to display items and the lines people read. */
export { displayName, formatPath, agentAt } from './names.js';
export { TranscriptFold, transcriptOf, type TranscriptEntry } from '../memory/transcript.js';
export { transitionHistory, decisionLine, directiveTag, formatScore, type HistoryEntry } from './decisions.js';
export { eventLines, eventJson, itemLines, type EventLines } from './event-lines.js';
export {
  displayFold,
  displayStep,
  displayNames,
  plainNames,
  markedText,
  eventWords,
  DISPLAY_START,
  SILENT_EVENTS,
  type DisplayItem,
  type DisplayNames,
  type DisplayState,
  type Tone,
} from './display-items.js';
export { checkEvents, eventProblem, type CheckedEvents } from './checked-events.js';
export { formatSessionTable, sessionStatus, type SessionRow } from './sessions-table.js';
export { renderShow, renderMarkdown, type StoredSessionReport } from './session-report.js';
export { bareDefinition } from './bare-definition.js';
export { terminalSafe, terminalSafeJson } from './terminal-safe.js';
