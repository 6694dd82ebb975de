import { UsageError } from './args.js';
import { renderMarkdown } from '../store/render.js';
import type { Store } from '../store/store.js';
import { displayDefinition, resolveSessionId } from './session-lookup.js';

/** `troupe export <id> --format md|json`: the session as Markdown, or as its validated JSON document. */
export async function exportSession(store: Store, wanted: string | undefined, format: string | undefined, write: (text: string) => void): Promise<void> {
  const fmt = format ?? 'md';
  if (fmt !== 'md' && fmt !== 'json') throw new UsageError(`--format must be md or json, got "${fmt}"`);
  const file = await store.read(await resolveSessionId(store, wanted, 'newest'));
  write(fmt === 'json' ? `${JSON.stringify(file, null, 2)}\n` : renderMarkdown(file, displayDefinition(file)));
}
