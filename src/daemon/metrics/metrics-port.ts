/**
 * The metrics port, apart from the server so the CLI can name it in --help without loading prom-client (the
 * server is loaded only when --metrics-bind is given, keeping `mlb` quick to start).
 */

/** MetalLB's speaker and controller serve their metrics on this port, so scrape configs carry over. */
export const METALLB_METRICS_PORT = 7472;
