/**
 * Makes the wall clock useless to the code under test for the rest of the file: real timers (setTimeout,
 * setInterval) never fire and Date/performance stand still, so a module that still reads the real clock instead
 * of its runtime stalls and the scenario fails instead of passing by luck. setImmediate stays real: the virtual
 * clock turns the event loop with it (src/runtime/virtual/next-turn.ts).
 */
import { afterAll, beforeAll, vi } from 'vitest';

export function onlyVirtualTime(): void {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
  });
  afterAll(() => {
    vi.useRealTimers();
  });
}
