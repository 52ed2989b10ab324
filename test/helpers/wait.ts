/**
 * Polling for "eventually" in tests: the bound is generous (the machines are shared and may
 * be loaded many times over), so it only decides "never happened", not "too slow".
 */

/** Resolves once `condition()` is true; rejects naming `what` after `ms` (default 20 s). */
export async function waitFor(condition: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
