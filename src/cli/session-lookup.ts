import type { MachineDefinition } from '../engine/definition.js';
import { UserError } from '../errors.js';
import { bareDefinition } from '../report/bare-definition.js';
import type { SessionState } from '../engine/session.js';
import type { JournalRecord, SessionDocument } from '../store/session-file.js';
import { storedAtEnd } from '../session/stored-tail.js';
import { machineAt } from '../session/at-step.js';
import { documentSealed } from '../session/source-seal.js';
import { storedTeamProblem } from '../session/stored-plan-trust.js';
import { storedMachine } from '../store/stored-machine.js';
import { matchId, newestFirst, type Store, type StoredEntry } from '../store/store.js';

/** What a command takes when no id is given: the newest session (show, export) or the newest one resume can continue. */
export type DefaultSession = 'newest' | 'resumable';

/** Why `troupe resume` cannot continue a stored session, or null when it can. */
export function notResumable(entry: StoredEntry): string | null {
  if (!('listing' in entry)) return 'unreadable';
  if (entry.lockedBy !== null) return 'open in another process';
  if (entry.listing.status === 'ended') return 'ended';
  if (!entry.listing.brief.trim()) return 'never started';
  return null;
}

/** How a command picks its session when no id is given, and the command (troupeCommand) its hints name. */
export interface SessionPick {
  pick: DefaultSession;
  /** The command the user types for troupe (`npm start --` before `npm link`); `troupe` when not given. */
  troupe?: string;
  sealed?: SealedPick;
}

/** How resume picks among the sessions that can go on: those this user's troupe sealed first (`env` gives the key), and where it says why when it takes another. */
export interface SealedPick {
  env: Record<string, string | undefined>;
  note: (line: string) => void;
}

/** Whether this user's troupe started the stored session: its document's seal holds for the sources it names. */
async function sealedHere(store: Store, id: string, env: Record<string, string | undefined>): Promise<boolean> {
  try {
    const doc = store.document ? await store.document(id) : (await store.read(id)).doc;
    return documentSealed(doc, env);
  } catch {
    return false;
  }
}

/**
 * The session a command names: a full id or unique prefix (exactly that session), else the most recently
 * updated one; for resume (the default) the most recently updated one that is not ended, has a brief and is not open elsewhere.
 * With `sealed`, resume takes the newest one this user's troupe started before any other: `updatedAt` is the
 * document's word, and a document planted in the data dir (a cloned repository's `.troupe/`) with a date to come
 * would win; when only such sessions can go on, it takes the newest and says so in one line.
 */
export async function resolveSessionId(store: Store, wanted: string | undefined, how: SessionPick = { pick: 'resumable' }): Promise<string> {
  if (wanted !== undefined) return matchId(wanted, await store.ids());
  const { pick, sealed, troupe = 'troupe' } = how;
  const entries = newestFirst(await store.list());
  if (entries.length === 0) throw new UserError(`no stored sessions yet — start one with ${troupe} run "<brief>"`);
  if (pick === 'newest') return entries[0]!.id;
  const resumable = entries.filter((e) => notResumable(e) === null);
  if (sealed) {
    for (const e of resumable) if (await sealedHere(store, e.id, sealed.env)) return e.id;
    if (resumable[0])
      sealed.note(
        `resuming ${resumable[0].id}, the newest session that can go on: none can that your troupe started (it was made elsewhere, before sessions were sealed, or edited) — name one with ${troupe} resume <id>`,
      );
  }
  const found = resumable[0];
  if (found) return found.id;
  const counts = new Map<string, number>();
  for (const e of entries) counts.set(notResumable(e)!, (counts.get(notResumable(e)!) ?? 0) + 1);
  const why = [...counts].map(([reason, n]) => `${n} ${reason}`).join(', ');
  throw new UserError(`no session can be resumed (${why}) — list them with ${troupe} sessions, then pick one with ${troupe} resume <id>, or start one with ${troupe} run "<brief>"`);
}

/**
 * A read session as show and export show it: its state as the journal ends and the machine that names its agents
 * and states there (sessionAt: the machine its journal records last, as it ran, whatever its team directory holds
 * now; a journal from before machine lines: as reopening builds it, storedMachine, its workflow's stored plan or
 * its team directory as it loads now, with the session's own turn limit). See untrustedNames for a document not
 * trusted.
 */
export function displayedSession(
  read: { doc: SessionDocument; records: readonly JournalRecord[] },
  env: Record<string, string | undefined>,
  note: (line: string) => void = () => {},
): { def: MachineDefinition; state: SessionState } {
  const bare = untrustedNames(read.doc, env, note);
  if (bare) return { def: bare, state: storedAtEnd(read, () => bare).state };
  // The team's own limit (40 turns) stepped a session run with --max-turns 2 past the turn it waited at: show said "interrupted".
  return storedAtEnd(read, () => storedMachine(read.doc) ?? bareDefinition(read.doc));
}

/** The machine that names a read session's agents and states as its journal ends, as displayedSession gives it, without replaying its steps (fork's list of steps). */
export function displayedMachine(
  read: { doc: SessionDocument; records: readonly JournalRecord[] },
  env: Record<string, string | undefined>,
  note: (line: string) => void = () => {},
): MachineDefinition {
  return untrustedNames(read.doc, env, note) ?? machineAt(read, () => storedMachine(read.doc) ?? bareDefinition(read.doc));
}

/**
 * The stand-in that names agents by id for a team session's document not trusted as resume trusts it (sealed by
 * this user's troupe, or the shipped team), `note` told why: a document planted in the data dir gets neither a
 * directory of its choosing read nor names of its choosing shown. Null for a trusted one.
 */
function untrustedNames(doc: SessionDocument, env: Record<string, string | undefined>, note: (line: string) => void): MachineDefinition | null {
  const untrusted = doc.workflow?.plan ? null : storedTeamProblem(doc.team.dir, documentSealed(doc, env));
  if (!untrusted) return null;
  note(`${untrusted} — its agents are named by id (troupe resume ${doc.id.slice(0, 8)} --team <dir> vouches for a directory)`);
  return bareDefinition(doc);
}
