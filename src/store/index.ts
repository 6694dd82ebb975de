/** Persistence only: the Store interface, its lowdb and in-memory adapters, the document and journal formats, locks. */
export { SESSION_SCHEMA_VERSION, SessionDocumentSchema, JournalRecordSchema, CheckpointSchema, type SessionDocument, type JournalRecord, type Checkpoint } from './session-file.js';
export { parseSessionFile, SessionFileError, MIGRATIONS, CURRENT_FORMAT, type FileFormat, type Loaded } from './load-file.js';
export type { Migration } from './migration.js';
export { dataDirFrom, checkId, matchId, newestFirst, eventsOf, type Store, type SessionHandle, type StoredEntry, type OpenedSession, type ReadSession } from './store.js';
export { LowdbStore, type LowdbStoreOptions } from './lowdb-store.js';
export { DataDirError, dataDirError, checkDataDir } from './data-dir.js';
export { MemoryStore } from './memory-store.js';
export { SessionLockedError, LockPathError, acquireLock, releaseLock, refreshLock, refreshLockIfDue, lockHolder, readLock, staleReason, lockStaleMs, pidAlive, type LockHolder } from './lock.js';
export { processInfo, parseProcStat, type ProcessInfo } from '../tools/process-info.js';
export { listingOf, type SessionListing } from './listing.js';
export { scanJournal, JournalWriter } from './journal-file.js';
export { sealLine, readSeal, hashOf, CHAIN_START } from './journal-chain.js';
export { JournalCheck, journalRules, CHAINED_SINCE, type JournalRules } from './journal-check.js';
export { forkSession, type ForkRequest } from './fork.js';
