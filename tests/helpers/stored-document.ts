import { readFileSync, writeFileSync } from 'node:fs';
import { documentInFile } from '../../src/store/checkpoint-slots.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import type { SessionDocument } from '../../src/store/session-file.js';

/**
 * Edits a stored session's document by hand: the document as its last checkpoint left it (its newest slot, see
 * src/store/checkpoint-slots.ts), edited, written over `<id>.json`, which is then newer than the slots and loads.
 * Returns the document's path.
 */
export async function editStoredDocument(dataDir: string, id: string, edit: (doc: SessionDocument) => void): Promise<string> {
  const store = new LowdbStore(dataDir);
  const doc = structuredClone(await store.document(id));
  edit(doc);
  writeFileSync(store.pathOf(id), JSON.stringify(doc));
  return store.pathOf(id);
}

/** A session document file's (`<id>.json`) newest document as text: its newest slot, else the document as created (see documentInFile). */
export function storedDocumentText(path: string): string {
  return documentInFile(readFileSync(path)).body.toString('utf8');
}
