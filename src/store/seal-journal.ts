import { rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fsyncOf, NODE_DOCUMENT_FS, syncDirectory, type DocumentFs } from './document-file.js';
import { CHAIN_START, withoutSeal } from './journal-chain.js';
import { JournalWriter, scanJournal } from './journal-file.js';
import type { SessionDocument } from './session-file.js';

/** Where a journal is rewritten before it is renamed over the old one. */
export function sealingPathOf(journal: string): string {
  return join(dirname(journal), `.${basename(journal)}.tmp`);
}

/**
 * Rewrites the journal of a session stored before schema 3 with every line sealed and chained, and returns
 * the hash of the last line its checkpoint covers. Version 2's lines keep their bytes (the seal is added at
 * their end) once checked for their numbers and against the checkpoint's line count; a version-1 file's
 * events become the first line. The new journal is written beside the old one, flushed, and renamed over
 * it, the directory flushed after: a crash leaves the old journal or the new one, and a journal that fails
 * its checks is refused with the old one left as it is.
 */
export function sealJournal(path: string, doc: SessionDocument, storedVersion: number, document: string, fs: DocumentFs = NODE_DOCUMENT_FS): string {
  const temp = sealingPathOf(path);
  const covers = doc.checkpoint.records;
  writeFileSync(temp, '');
  let covered = CHAIN_START;
  try {
    const writer = new JournalWriter(temp, undefined, fsyncOf(fs));
    try {
      const add = (json: string, n: number) => {
        writer.appendJson(json, n);
        if (n === covers) covered = writer.lastHash;
      };
      if (storedVersion === 1) {
        if (doc.legacyEvents && doc.legacyEvents.length > 0) add(JSON.stringify({ n: 1, events: doc.legacyEvents }), 1);
      } else {
        // A crash between this rename and the document's leaves a sealed journal beside a version-2 document: its seals are made afresh.
        scanJournal(path, (_record, line, bytes) => add(withoutSeal(bytes.toString('utf8')), line), { chained: false, checkpoint: { records: covers, document } });
      }
      writer.sync();
    } finally {
      writer.close();
    }
    fs.renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  syncDirectory(dirname(path), fs);
  return covered;
}
