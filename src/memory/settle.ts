import type { AttachedMemory } from './attach-memory.js';

/** Waits for background compression to land, at most `ms`; a slower summary is left (its raw turns stay). */
export async function settleMemory(memory: AttachedMemory | null, ms: number): Promise<void> {
  if (!memory) return;
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  try {
    await Promise.race([memory.memory.idle(), grace]);
  } finally {
    clearTimeout(timer);
  }
}
