/** Sessions: the embedded composition root (openSession), the assembly every backend shares, the session face. */
export { openSession, type OpenSessionOptions } from './open-session.js';
export { assembleSession, type SessionAssembly, type AssembledSession } from './assemble.js';
export { teamKind, type SessionKind, type Tiers } from './session-kind.js';
export { workflowKind } from './workflow-kind.js';
export { TroupeSession, type Detach } from './troupe-session.js';
export { SessionKernel, SessionSaveError, type SessionListener } from '../kernel/session-kernel.js';
export { foldJournal } from './fold.js';
