import { describe, expect, test } from 'vitest';
import { confirmSuspicion, startSuspicion, suspicionTimeoutAfter } from '../../../src/gossip/swim';

describe('suspicion timeout after c confirmations: max - ln(c+1)/ln(k+1) x (max - min), floored to ms, >= min', () => {
  test('k = 3, min 2 s, max 30 s', () => {
    expect(suspicionTimeoutAfter(0, 3, 2000, 30_000)).toBe(30_000);
    // ln 2 / ln 4 = 0.5: 30 - 14 = 16 s
    expect(suspicionTimeoutAfter(1, 3, 2000, 30_000)).toBe(16_000);
    // ln 3 / ln 4 = 0.792481: 30 - 22.189 = 7.810 s (floored to the millisecond)
    expect(suspicionTimeoutAfter(2, 3, 2000, 30_000)).toBe(7810);
    expect(suspicionTimeoutAfter(3, 3, 2000, 30_000)).toBe(2000);
    expect(suspicionTimeoutAfter(5, 3, 2000, 30_000)).toBe(2000);
  });

  test('k = 0 means min from the start', () => {
    expect(suspicionTimeoutAfter(0, 0, 4000, 24_000)).toBe(4000);
    expect(startSuspicion('a', 0, 4000, 24_000, 100).deadline).toBe(4100);
  });

  test('FAST in 3 nodes: k = 1, one confirmation goes from 1.8 s to 600 ms', () => {
    const s = startSuspicion('b', 1, 600, 1800, 1000);
    expect(s.deadline).toBe(2800);
    const c = confirmSuspicion(s, 'a')!;
    expect(c.deadline).toBe(1600);
    expect(confirmSuspicion(c, 'x')).toBeUndefined(); // k reached
  });
});

describe('confirmations (k = 3, min 500 ms, max 2 s, started at 0 by "me")', () => {
  const start = startSuspicion('me', 3, 500, 2000, 0);

  function confirmAll(froms: string[]): { deadline: number; newInfo: boolean[] } {
    let s = start;
    const newInfo: boolean[] = [];
    for (const from of froms) {
      const next = confirmSuspicion(s, from);
      newInfo.push(next !== undefined);
      if (next) s = next;
    }
    return { deadline: s.deadline, newInfo };
  }

  test('no confirmation: max', () => {
    expect(start.deadline).toBe(2000);
  });

  test('the original reporter does not confirm; repeats do not count', () => {
    expect(confirmAll(['me', 'foo'])).toEqual({ deadline: 1250, newInfo: [false, true] });
    expect(confirmAll(['me', 'foo', 'foo', 'foo'])).toEqual({ deadline: 1250, newInfo: [false, true, false, false] });
  });

  test('two confirmations: 2 - log(3)/log(4) x 1.5 = 0.81128 s, floored to 811 ms', () => {
    expect(confirmAll(['me', 'foo', 'bar'])).toEqual({ deadline: 811, newInfo: [false, true, true] });
  });

  test('k confirmations: min, and nothing new after', () => {
    expect(confirmAll(['me', 'foo', 'bar', 'baz'])).toEqual({ deadline: 500, newInfo: [false, true, true, true] });
    expect(confirmAll(['me', 'foo', 'bar', 'baz', 'zoo']).newInfo).toEqual([false, true, true, true, false]);
  });

  test('a late confirmation can put the deadline in the past (due at once)', () => {
    const s = startSuspicion('me', 1, 600, 1800, 0);
    // A confirmation arriving at 900 ms moves the deadline to 600 ms: the caller's timer loop fires it now.
    expect(confirmSuspicion(s, 'other')!.deadline).toBe(600);
  });
});
