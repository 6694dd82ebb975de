/** Durable sessions: the Store interface, its lowdb and in-memory adapters, the file format and the runner wiring. */
export { SESSION_SCHEMA_VERSION, SessionFileSchema, type SessionFile } from './session-file.js';
export { parseSessionFile, SessionFileError, MIGRATIONS, CURRENT_FORMAT, type FileFormat, type Migration, type Loaded } from './load-file.js';
export { dataDirFrom, checkId, matchId, type Store, type SessionHandle, type StoredEntry } from './store.js';
export { LowdbStore, type LowdbStoreOptions } from './lowdb-store.js';
export { DataDirError, dataDirError, checkDataDir } from './data-dir.js';
export { MemoryStore } from './memory-store.js';
export { SessionLockedError, acquireLock, releaseLock, lockHolder, pidAlive } from './lock.js';
export { redactorFrom, redactDeep, type Redactor } from '../llm/redact.js';
export { SessionRecorder, type RecorderOptions } from './recorder.js';
export { createStoredSession, openStoredSession, type StoredSession, type NewStoredSession, type OpenStoredOptions } from './stored-session.js';
export { summarise, formatSessionTable, usageTotals, type SessionSummary } from './summary.js';
export { transitionHistory, decisionLine, type HistoryEntry } from './history.js';
export { checkEvents, eventProblem, type CheckedEvents } from './event-schema.js';
export { renderShow, renderMarkdown, bareDefinition } from './render.js';
export { demoProgress } from './demo-progress.js';
