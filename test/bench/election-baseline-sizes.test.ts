// bench/election's plan for its slow baseline: the full size only when it fits the time budget, else the sizes
// that do (the smallest always), and the full-size figure measured or scaled from the largest size measured.
import { describe, expect, it } from 'vitest';
import { baselineAt, MIN_SIZE, planBaselineSizes, scalingOf } from '../../bench/election/baseline-sizes';

describe('bench/election baseline sizes', () => {
  it('measures the full size when every run of it fits the budget', () => {
    // 10,000 services x 1 µs x 10 runs = 0.1 s
    const plan = planBaselineSizes(10_000, 0.001, 10, 60);
    expect(plan.full).toBe(true);
    expect(plan.sizes[plan.sizes.length - 1]).toBe(10_000);
  });

  it('stops at the largest step that fits when the full size would not (a minute per recompute)', () => {
    // 6 ms per service, 10 runs per size: 100 -> 6 s, 300 -> 18 s, 1,000 -> 60 s, 3,000 -> 180 s
    const plan = planBaselineSizes(10_000, 6, 10, 150);
    expect(plan).toMatchObject({ sizes: [100, 300, 1_000], full: false });
    expect(plan.estimatedS).toBeCloseTo(84);
    expect(plan.fullEstimateS).toBeCloseTo(600);
  });

  it('always measures the two smallest sizes, so there is a scaling to report even over budget', () => {
    expect(planBaselineSizes(10_000, 1_000, 10, 1).sizes).toEqual([100, 300]);
  });

  it('never measures fewer than MIN_SIZE services, nor a size twice', () => {
    const plan = planBaselineSizes(200, 0.001, 10, 60);
    expect(plan.sizes[0]).toBe(MIN_SIZE);
    expect(new Set(plan.sizes).size).toBe(plan.sizes.length);
    expect(plan.sizes[plan.sizes.length - 1]).toBe(200);
  });

  it('reports a linear cost as a flat cost per service and a log-log slope of 1', () => {
    const s = scalingOf([
      { size: 100, ms: 500 },
      { size: 1_000, ms: 5_000 },
    ]);
    expect(s.perServiceMs).toEqual([5, 5]);
    expect(s.exponent).toBeCloseTo(1);
    expect(scalingOf([{ size: 100, ms: 500 }]).exponent).toBeNaN();
  });

  it('gives the full-size time as measured when measured, else scaled from the largest size', () => {
    expect(baselineAt(10_000, [{ size: 10_000, ms: 60_000 }])).toEqual({ ms: 60_000, measured: true });
    expect(
      baselineAt(10_000, [
        { size: 100, ms: 700 },
        { size: 1_000, ms: 6_000 },
      ]),
    ).toEqual({ ms: 60_000, measured: false });
    expect(baselineAt(10_000, []).ms).toBeNaN();
  });
});
