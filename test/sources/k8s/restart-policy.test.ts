import { describe, expect, it } from 'vitest';
import {
  MAX_RESTART_DELAY_MS,
  MIN_RESTART_DELAY_MS,
  restartDelayMs,
  watchPath,
  watchSpacingDelayMs,
  watchTimeoutSeconds,
} from '../../../src/sources/k8s/restart-policy';
import { ManualRuntime } from '../../support/manual-runtime';

describe('restart policy of a Kubernetes watch', () => {
  it('waits longer after each failure, from 1 s up to 30 s, jittered', () => {
    const random = new ManualRuntime(0, 7);
    const delays = Array.from({ length: 12 }, (_, i) => restartDelayMs(i + 1, random));
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(MIN_RESTART_DELAY_MS);
      expect(d).toBeLessThanOrEqual(MAX_RESTART_DELAY_MS);
    }
    expect(delays[5]).toBeGreaterThan(delays[0] ?? 0);
    expect(delays.slice(6).every((d) => d >= MAX_RESTART_DELAY_MS / 2)).toBe(true);
    // Two speakers that failed together do not come back together.
    const other = new ManualRuntime(0, 8);
    expect(Array.from({ length: 12 }, (_, i) => restartDelayMs(i + 1, other))).not.toEqual(delays);
  });

  it('spaces watch requests a second apart and asks for bookmarks and a 5-10 minute server timeout', () => {
    expect(watchSpacingDelayMs(10_000, 9_700)).toBe(700);
    expect(watchSpacingDelayMs(10_000, 8_000)).toBe(0);
    const random = new ManualRuntime(0, 3);
    const timeouts = Array.from({ length: 50 }, () => watchTimeoutSeconds(random));
    expect(Math.min(...timeouts)).toBeGreaterThanOrEqual(300);
    expect(Math.max(...timeouts)).toBeLessThanOrEqual(600);
    expect(new Set(timeouts).size).toBeGreaterThan(10);
    expect(watchPath('/api/v1/nodes', 321)).toBe('/api/v1/nodes?allowWatchBookmarks=true&timeoutSeconds=321');
  });
});
