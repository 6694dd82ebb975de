import { redactorFrom } from '../llm/redact.js';
import { LowdbStore } from '../store/lowdb-store.js';
import { dataDirFrom } from '../store/store.js';
import type { CliIo } from './io.js';

// Apart from common.ts, so commands that store nothing (graph, validate, schemas) never load the store.
/** The session store in the data directory (TROUPE_DATA_DIR or .troupe/), redacting the secrets of this environment. */
export function storeFor(io: CliIo): LowdbStore {
  // The fold (engine, team loading) is imported only when a stored session has journal lines after its checkpoint,
  // and once (an import() per session, resolved again each time, cost a listing of 1,000 crashed sessions ~1 ms each under tsx).
  let tail: Promise<typeof import('../session/stored-tail.js')> | null = null;
  const foldTail = async (...args: Parameters<typeof import('../session/stored-tail.js').foldStoredTail>) => {
    tail ??= import('../session/stored-tail.js');
    return (await tail).foldStoredTail(...args);
  };
  return new LowdbStore(dataDirFrom(io.env, io.cwd), { redact: redactorFrom(io.env), foldTail });
}
