// Checkpoint writes run off the event loop; a process that must leave at once (its reader closed the pipe)
// waits for the ones in flight, so the session's document (what `troupe sessions` and `show` read) is as
// far as its journal and not a checkpoint behind.
const inFlight = new Set<Promise<unknown>>();

/** Tracks a document write (or a journal flush in turn with them) until it settles. */
export function trackWrite(write: Promise<unknown>): void {
  const settled: Promise<unknown> = write.then(
    (): unknown => inFlight.delete(settled),
    (): unknown => inFlight.delete(settled),
  );
  inFlight.add(settled);
}

/** Resolves once the document writes in flight now, and those they lead to (a few rounds at most), have settled. */
export async function writesSettled(rounds = 4): Promise<void> {
  for (let i = 0; i < rounds && inFlight.size > 0; i++) await Promise.allSettled([...inFlight]);
}
