/**
 * Waits for a condition instead of a fixed time: polls `probe` until it returns something other than
 * undefined/false and returns that. The timeout is generous on purpose (a loaded CI machine), since a
 * condition that holds ends the wait at once; it is a failure bound, never a measure.
 */

/** How long a condition may take before the test fails: far above any expected wait, so only a real fault hits it. */
export const UNTIL_TIMEOUT_MS = 10_000;
/** Between polls: short enough that a met condition is seen almost at once, long enough not to spin the CPU. */
export const UNTIL_POLL_MS = 10;

export async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = UNTIL_TIMEOUT_MS,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${String(last)})`);
    await new Promise((resolve) => setTimeout(resolve, UNTIL_POLL_MS));
  }
}
