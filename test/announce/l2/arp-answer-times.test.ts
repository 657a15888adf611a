/**
 * The answer thread's times summed over an announcer's sockets: each reading adds what it counted since the one
 * before from the same socket, so a socket opened again (its addon counts back at zero) never takes anything away.
 */
import { describe, expect, it } from 'vitest';
import { foldAnswerTimes, type ArpAnswerTimes } from '../../../src/announce/l2/arp-answer-times';

const BOUNDS = [0.00001, 0.001];
const times = (queued: number[], answering: number[], sum = 0): ArpAnswerTimes => ({
  boundsSeconds: BOUNDS,
  queued: { counts: queued, sumSeconds: sum },
  answering: { counts: answering, sumSeconds: sum / 10 },
});

describe('foldAnswerTimes', () => {
  it("adds only what a socket counted since its last reading, and two sockets' counts add up", () => {
    let total = foldAnswerTimes(undefined, times([2, 1, 0], [3, 0, 0], 0.01));
    total = foldAnswerTimes(total, times([4, 1, 1], [5, 1, 0], 0.03), times([2, 1, 0], [3, 0, 0], 0.01));
    expect(total.queued.counts).toEqual([4, 1, 1]);
    expect(total.answering.counts).toEqual([5, 1, 0]);
    expect(total.queued.sumSeconds).toBeCloseTo(0.03);
    // Another socket's first reading.
    total = foldAnswerTimes(total, times([1, 0, 0], [1, 0, 0], 0.001));
    expect(total.queued.counts).toEqual([5, 1, 1]);
    expect(total.answering.sumSeconds).toBeCloseTo(0.0031);
    expect(total.boundsSeconds).toEqual(BOUNDS);
  });

  it('a socket opened again starts from its new counts: the total never goes down', () => {
    const before = times([9, 9, 9], [9, 9, 9], 1);
    const total = foldAnswerTimes(undefined, before);
    // Read against the old socket's last reading by mistake, a smaller count adds nothing rather than subtracting.
    const after = foldAnswerTimes(total, times([1, 0, 0], [1, 0, 0], 0.1), before);
    expect(after.queued.counts).toEqual([9, 9, 9]);
    expect(after.queued.sumSeconds).toBe(1);
  });
});
