import { renderShow } from '../store/render.js';
import type { Store } from '../store/store.js';
import { displayDefinition, resolveSessionId } from './session-lookup.js';

/** `troupe show <id>`: the transcript with every decision (transitions and their arbitration), read-only. */
export async function showSession(store: Store, wanted: string | undefined, write: (line: string) => void): Promise<void> {
  const file = await store.read(await resolveSessionId(store, wanted, 'newest'));
  for (const line of renderShow(file, displayDefinition(file))) write(line);
}
