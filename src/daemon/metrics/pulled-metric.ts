/**
 * One metric read at scrape time: its name, type, labels and how to read its samples from one scrape's view.
 * The tables of MetalLB's metrics (metallb-metrics.ts) and mlb's own (mlb-metrics.ts) are lists of these, so a
 * metric's name, help, labels and source sit together in one place. Pure: a sample list from a view.
 */
import type { ControlSnapshot } from '../control/control-snapshot';
import type { MetricsCounters } from './metrics-source';

/** What one scrape reads: the snapshot and the counters, each taken once for every metric. */
export interface ScrapeView {
  readonly snapshot: ControlSnapshot;
  readonly counters: MetricsCounters;
}

/** Label values (every label of the metric) and the value. */
export type Sample = readonly [labels: Readonly<Record<string, string>>, value: number];

export interface PulledMetric {
  readonly name: string;
  readonly help: string;
  /** counter: a cumulative count the source keeps (exposed as it is); gauge: a value now. */
  readonly type: 'gauge' | 'counter';
  readonly labels: readonly string[];
  readonly samples: (view: ScrapeView) => Iterable<Sample>;
}

/** One series of a histogram the source keeps whole: per-bucket counts (not cumulative; the last is +Inf). */
export interface HistogramSample {
  readonly labels: Readonly<Record<string, string>>;
  /** Each bucket's upper bound but the last's. */
  readonly bounds: readonly number[];
  readonly counts: readonly number[];
  readonly sum: number;
}

/** A histogram the source counts itself (the addon's answer times): exposed as it is at each scrape. */
export interface PulledHistogram {
  readonly name: string;
  readonly help: string;
  readonly type: 'histogram';
  readonly labels: readonly string[];
  readonly histograms: (view: ScrapeView) => Iterable<HistogramSample>;
}

/** Samples from a count-by-key record ({reason: n}), sorted by key so the exposition is stable. */
export function byKey(label: string, record: Readonly<Record<string, number>> | undefined): Sample[] {
  if (!record) return [];
  return Object.keys(record)
    .sort()
    .map((key) => [{ [label]: key }, record[key]!] as const);
}

/** A label-less sample, or none when the value is unknown. */
export function single(value: number | undefined): Sample[] {
  return value === undefined ? [] : [[{}, value]];
}

export const bool = (b: boolean): number => (b ? 1 : 0);
