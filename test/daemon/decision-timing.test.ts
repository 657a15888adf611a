/**
 * A decision that holds the event loop longer than the gossip probe timeout is counted and said, at most once per
 * SLOW_DECISION_LOG_INTERVAL_MS (src/daemon/decision-timing.ts); a quick one is neither.
 */
import { describe, expect, it } from 'vitest';
import { DecisionTiming, SLOW_DECISION_LOG_INTERVAL_MS } from '../../src/daemon/decision-timing';

describe('DecisionTiming', () => {
  it('warns of a decision longer than the probe timeout, then not again within the interval, and counts each', () => {
    const timing = new DecisionTiming(100);
    expect(timing.view()).toEqual({ lastMs: undefined, slow: 0 });
    expect(timing.record(100, 100, 10)).toBeUndefined();
    const first = timing.record(1_200, 2_200, 10_000);
    expect(first).toMatchObject({ tookMs: 1_200, probeTimeoutMs: 100, services: 10_000 });
    expect(first?.message).toContain('held the event loop for 1200 ms, longer than the gossip probe timeout (100 ms)');
    expect(timing.record(1_000, 4_000, 10_000)).toBeUndefined();
    expect(timing.view()).toEqual({ lastMs: 1_000, slow: 2 });
    const later = 4_000 + SLOW_DECISION_LOG_INTERVAL_MS;
    expect(timing.record(500, later + 500, 10_000)?.tookMs).toBe(500);
    expect(timing.view().slow).toBe(3);
  });
});
