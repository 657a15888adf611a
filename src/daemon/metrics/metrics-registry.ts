/**
 * The Prometheus registry of one daemon: MetalLB's metrics, mlb's own and the process ones, all read from the
 * source when scraped (metrics-source.ts), plus the event-made ones fed by the daemon's event stream. Its own
 * prom-client Registry, never the global one, so two daemons in one test process do not share series.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import { EventMetrics } from './event-metrics';
import { METALLB_METRICS } from './metallb-metrics';
import type { MetricsSource } from './metrics-source';
import { MLB_METRICS } from './mlb-metrics';
import { PROCESS_METRICS } from './process-metrics';
import type { HistogramSample, PulledHistogram, PulledMetric, ScrapeView } from './pulled-metric';

/** Every metric read at scrape time, in exposition order. */
export const PULLED_METRICS: readonly (PulledMetric | PulledHistogram)[] = [...METALLB_METRICS, ...MLB_METRICS, ...PROCESS_METRICS];

export interface MetricsRegistry {
  /** The Prometheus text format's content type (version 0.0.4). */
  readonly contentType: string;
  /** Reads the source once and renders every metric in the Prometheus text format. */
  render(): Promise<string>;
  /** Stops following the event stream. */
  close(): void;
}

/** Subscribes to the source's events at once: owner changes from then on are counted. */
export function createMetricsRegistry(source: MetricsSource): MetricsRegistry {
  const registry = new Registry();
  let view: ScrapeView | undefined;
  const current = (): ScrapeView => (view ??= takeView(source));
  for (const metric of PULLED_METRICS) register(registry, metric, current);
  const events = new EventMetrics(registry);
  const unsubscribe = source.subscribeEvents((event) => events.observe(event));
  return {
    contentType: registry.contentType,
    async render() {
      // One view per scrape: every metric of one exposition describes the same instant.
      view = takeView(source);
      return registry.metrics();
    },
    close: unsubscribe,
  };
}

function takeView(source: MetricsSource): ScrapeView {
  return { snapshot: source.snapshot(), counters: source.metricsCounters?.() ?? {} };
}

/**
 * A prom-client metric whose collect() replaces its values with the view's samples: series whose labels are
 * gone (a withdrawn IP, a deleted pool) disappear, and a counter shows the source's cumulative count as it is.
 * Values a sample cannot carry (not finite, a negative count) are left out rather than failing the scrape.
 */
function register(registry: Registry, metric: PulledMetric | PulledHistogram, view: () => ScrapeView): void {
  if (metric.type === 'histogram') {
    registerHistogram(registry, metric, view);
    return;
  }
  const base = { name: metric.name, help: metric.help, labelNames: [...metric.labels], registers: [registry] };
  if (metric.type === 'gauge') {
    new Gauge({
      ...base,
      collect() {
        clear(this, metric.labels.length === 0);
        for (const [labels, value] of metric.samples(view())) if (Number.isFinite(value)) this.set(labels, value);
      },
    });
    return;
  }
  new Counter({
    ...base,
    collect() {
      clear(this, metric.labels.length === 0);
      for (const [labels, value] of metric.samples(view())) if (Number.isFinite(value) && value >= 0) this.inc(labels, value);
    },
  });
}

/**
 * A histogram whose counts the source keeps: prom-client's Histogram only observes, so this is a metric object of
 * the shape the Registry renders (get() with each line's metricName), with cumulative buckets, _sum and _count.
 */
function registerHistogram(registry: Registry, metric: PulledHistogram, view: () => ScrapeView): void {
  registry.registerMetric({
    name: metric.name,
    help: metric.help,
    type: 'histogram',
    get: async () => ({
      name: metric.name,
      help: metric.help,
      type: 'histogram',
      aggregator: 'sum',
      values: [...metric.histograms(view())].flatMap((h) => histogramLines(metric.name, h)),
    }),
    reset() {},
  } as unknown as Parameters<Registry['registerMetric']>[0]);
}

function histogramLines(
  name: string,
  h: HistogramSample,
): { metricName: string; labels: Record<string, string | number>; value: number }[] {
  let cumulative = 0;
  const lines = h.counts.map((count, i) => {
    cumulative += count;
    return { metricName: `${name}_bucket`, labels: { ...h.labels, le: i < h.bounds.length ? h.bounds[i]! : '+Inf' }, value: cumulative };
  });
  return [
    ...lines,
    { metricName: `${name}_sum`, labels: { ...h.labels }, value: h.sum },
    { metricName: `${name}_count`, labels: { ...h.labels }, value: cumulative },
  ];
}

/** Drops every series; reset() alone leaves a label-less metric at 0, which would claim a value the source lacks. */
function clear(metric: Gauge | Counter, labelless: boolean): void {
  metric.reset();
  if (labelless) metric.remove();
}
