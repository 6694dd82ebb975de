/**
 * Collects what arrives one message at a time and hands it over in batches, in order: one flush per turn of the event loop (`schedule`).
 * A stream replaying thousands of events folds them in one render, not one render (and one layout of the transcript) each.
 */
export function batcher<T>(apply: (batch: T[]) => void, schedule: (flush: () => void) => void): { push: (item: T) => void; drop: () => void } {
  let queue: T[] = [];
  let due = false;
  let live = true;
  const flush = () => {
    due = false;
    const batch = queue;
    queue = [];
    if (live && batch.length > 0) apply(batch);
  };
  return {
    push: (item) => {
      if (!live) return;
      queue.push(item);
      if (!due) {
        due = true;
        schedule(flush);
      }
    },
    // The stream was left (another session opened): what it sent and was not yet applied goes.
    drop: () => {
      live = false;
      queue = [];
    },
  };
}
