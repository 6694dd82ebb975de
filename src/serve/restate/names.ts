/** The Restate names troupe registers; the serve side calls them by name, without importing the SDK. */
export const RESTATE_NAMES = {
  /** The virtual object holding one session per key (the session id). */
  session: 'troupe_session',
  /** The virtual object listing the sessions (one key). */
  index: 'troupe_sessions',
  /** The virtual object keeping what sessions of a team (or a workflow) did, keyed `team:<name>` or `workflow:<name>`. */
  learning: 'troupe_learning',
} as const;

/** The one key of the session index object. */
export const INDEX_KEY = 'all';
