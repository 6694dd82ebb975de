/** Sessions: the one composition root (openSession), the actor that owns a session's state, its journal recorder. */
export { openSession, type OpenSessionOptions } from './open-session.js';
export { TroupeSession, type Detach } from './troupe-session.js';
export { SessionActor, SessionSaveError, type SessionListener } from './actor.js';
export { foldJournal } from './fold.js';
