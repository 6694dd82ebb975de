import type { MachineDefinition } from '../engine/definition.js';
import { displayNames } from '../report/display-items.js';
import { deliverablesOf, type Deliverables } from '../report/deliverables.js';
import type { ReadSession, Store } from '../store/store.js';
import { listWorkspaces } from '../tools/workspace-list.js';
import { stateAtJournalEnd } from './stored-tail.js';

/** A stored session's deliverables document: read from its journal, with the workspaces its agents left on disk. */
export async function sessionDeliverables(store: Store, read: ReadSession, def: MachineDefinition, status?: string): Promise<Deliverables> {
  const root = store.filesOf?.(read.doc.id);
  const workspaces = root ? await listWorkspaces(root) : [];
  return deliverablesOf({ doc: read.doc, events: read.events, records: read.records, names: displayNames(def), state: stateAtJournalEnd(read, def), workspaces, ...(status ? { status } : {}) });
}
