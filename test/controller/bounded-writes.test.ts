import { describe, expect, it } from 'vitest';
import { forEachBounded } from '../../src/controller/bounded-writes';

describe('forEachBounded', () => {
  it('runs every job, starting them in order, never more than the limit at once', async () => {
    let inFlight = 0;
    let most = 0;
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const done = forEachBounded([...Array(10).keys()], 3, async (i) => {
      started.push(i);
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => releases.push(resolve));
      inFlight -= 1;
    });
    // Release one job at a time, as answers would arrive.
    while (started.length < 10 || inFlight > 0) {
      await Promise.resolve();
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await done;
    expect(started).toEqual([...Array(10).keys()]);
    expect(most).toBe(3);
  });

  it('resolves at once for no items', async () => {
    await expect(forEachBounded([], 4, () => Promise.reject(new Error('never called')))).resolves.toBeUndefined();
  });
});
