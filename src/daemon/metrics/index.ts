// src/daemon/metrics: the Prometheus endpoint (--metrics-bind), read from the daemon's state at scrape time.
export { startMetricsServer, routeMetricsRequest, MetricsServerError, MetricsErrorCode, METALLB_METRICS_PORT } from './metrics-server';
export type { MetricsServer, MetricsServerOptions, MetricsRoute } from './metrics-server';
export { createMetricsRegistry, PULLED_METRICS } from './metrics-registry';
export type { MetricsRegistry } from './metrics-registry';
export type { MetricsSource, MetricsCounters } from './metrics-source';
export { poolMetrics } from './pool-metrics';
export type { PoolMetrics, PooledAddresses } from './pool-metrics';
export { UNHELD_BUCKETS_SECONDS, isOwnerMove } from './event-metrics';
