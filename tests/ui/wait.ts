/** Polls until `check` returns true (or throws its last error after `limitMs`); never asserts on time. */
export async function until(check: () => boolean, what: () => string, limitMs = 5000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Lets Ink mount its effects (input listeners) before the test types. */
export const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));
