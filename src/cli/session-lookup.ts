import type { MachineDefinition } from '../engine/definition.js';
import { UserError } from '../llm/errors.js';
import { openTeam } from '../runtime/open-team.js';
import { bareDefinition } from '../store/render.js';
import type { SessionFile } from '../store/session-file.js';
import { matchId, newestFirst, type Store } from '../store/store.js';

/** The session a command names: a full id or unique prefix, or the most recently updated one. */
export async function resolveSessionId(store: Store, wanted: string | undefined): Promise<string> {
  if (wanted !== undefined) return matchId(wanted, await store.ids());
  const newest = newestFirst(await store.list())[0];
  if (!newest) throw new UserError('no stored sessions yet — start one with troupe run "<brief>"');
  return newest.id;
}

/** The session's team definition for display; the stored names are used if the team directory is gone. */
export function displayDefinition(file: SessionFile): MachineDefinition {
  try {
    return openTeam(file.team.dir).def;
  } catch {
    return bareDefinition(file);
  }
}
