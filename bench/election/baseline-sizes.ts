/**
 * How much of the MetalLB-shaped baseline bench/election measures, pure. The baseline recomputes every service on
 * every change, each one sorting the nodes with a hash in the comparator: O(services x nodes log nodes) per change,
 * about a minute at 10,000 x 1,000. After a warm-up, its cost per service is estimated; the sizes measured are the
 * ladder's steps that fit the time budget (best-of-N of each case at each size), the full size only when it fits.
 * The scaling is then reported from what was measured: cost per service at each size (flat: linear in services)
 * and the log-log slope between the smallest and the largest size (1.0: linear).
 */

/** Fractions of the full service count tried in order, smallest first; the full size is the last step. */
export const SIZE_LADDER = [0.01, 0.03, 0.1, 0.3, 1] as const;
/** Fewer services than this give a per-service cost dominated by timer resolution and one-off costs. */
export const MIN_SIZE = 20;
/** Steps always measured, whatever the budget: two sizes are the fewest that show a scaling. */
export const ALWAYS_MEASURED = 2;

export interface SizePlan {
  /** Service counts to measure, ascending; the last is the full size when `full`. */
  readonly sizes: number[];
  readonly full: boolean;
  /** Estimated seconds the chosen sizes take (every case, every repetition). */
  readonly estimatedS: number;
  /** Estimated seconds the full size alone would take. */
  readonly fullEstimateS: number;
}

/**
 * `perServiceMs`: the warmed baseline's cost per service per recompute; `runsPerSize`: recomputes measured at each
 * size (cases x best-of-N). Steps are taken while their cumulative estimate stays within `budgetS`; the
 * ALWAYS_MEASURED smallest steps are taken whatever the budget, so there is a scaling to report.
 */
export function planBaselineSizes(services: number, perServiceMs: number, runsPerSize: number, budgetS: number): SizePlan {
  const secondsFor = (size: number) => (size * perServiceMs * runsPerSize) / 1000;
  const steps = [...new Set(SIZE_LADDER.map((f) => Math.min(services, Math.max(MIN_SIZE, Math.round(services * f)))))];
  const sizes: number[] = [];
  let estimatedS = 0;
  for (const size of steps) {
    const cost = secondsFor(size);
    if (sizes.length >= ALWAYS_MEASURED && estimatedS + cost > budgetS) break;
    sizes.push(size);
    estimatedS += cost;
  }
  return { sizes, full: sizes[sizes.length - 1] === services, estimatedS, fullEstimateS: secondsFor(services) };
}

export interface SizePoint {
  readonly size: number;
  /** Best time of one full recompute at this size (ms). */
  readonly ms: number;
}

export interface Scaling {
  /** ms per service at each size, in the order given. */
  readonly perServiceMs: number[];
  /** d log(ms) / d log(size) between the smallest and the largest size; NaN with one size. */
  readonly exponent: number;
}

export function scalingOf(points: readonly SizePoint[]): Scaling {
  const sorted = [...points].sort((a, b) => a.size - b.size);
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  const exponent = first && last && last.size > first.size ? Math.log(last.ms / first.ms) / Math.log(last.size / first.size) : NaN;
  return { perServiceMs: points.map((p) => p.ms / p.size), exponent };
}

/**
 * The baseline's time at `services`: measured when the largest point is that size, else the largest point's cost
 * per service times `services` (each service's election is independent of the others: linear, as scalingOf shows).
 */
export function baselineAt(services: number, points: readonly SizePoint[]): { ms: number; measured: boolean } {
  const largest = points.reduce<SizePoint | undefined>((a, b) => (a === undefined || b.size > a.size ? b : a), undefined);
  if (!largest) return { ms: NaN, measured: false };
  if (largest.size === services) return { ms: largest.ms, measured: true };
  return { ms: (largest.ms / largest.size) * services, measured: false };
}
