/**
 * The metrics endpoint (--metrics-bind): plain HTTP, GET /metrics in the Prometheus text format, GET / a short
 * page pointing there, 404 for anything else. Each scrape reads the daemon's state once (metrics-registry.ts);
 * nothing runs between scrapes. A scrape that cannot be answered gets 503, never a crash of the daemon.
 */
import { formatHostPort, type HostPort } from '../../gossip/transport/address';
import type { HttpRequest, HttpResponse, HttpServerFactory } from '../../runtime/http';
import { realHttpServers } from '../../runtime/real-http-server';
import type { Logger } from '../logger';
import { createMetricsRegistry } from './metrics-registry';
import type { MetricsSource } from './metrics-source';
import { CodedError } from '../../errors/coded-error';

export { METALLB_METRICS_PORT } from './metrics-port';
/**
 * A Prometheus server or two and an operator's curl; a runaway client cannot use up the daemon's descriptors.
 * At the cap a new connection closes the oldest idle one (http-connection-cap.ts), so idle sockets never lock a
 * scraper out; only this many scrapes answered at the same moment would.
 */
export const METRICS_MAX_CONNECTIONS = 32;
/** Prometheus's default scrape timeout; a client slower than this to send its request holds a descriptor for nothing. */
const METRICS_REQUEST_TIMEOUT_MS = 10_000;
/**
 * How often Node checks the request timeouts above. Its default (30 s) let a silent connection live up to 40 s;
 * once a second keeps the timeouts what they say at the cost of one timer.
 */
const METRICS_TIMEOUT_CHECK_MS = 1_000;
/** Prometheus reuses its connection every scrape interval (15 s by default); between scrapes it may close. */
const METRICS_KEEP_ALIVE_MS = 5_000;

/**
 * The limits above as a server takes them: the controller's metrics and the /healthz, /readyz servers
 * (probe-endpoints.ts) serve the same kind of client, a scraper or a kubelet, and share them.
 */
export const SMALL_HTTP_SERVER_LIMITS = {
  timeoutCheckMs: METRICS_TIMEOUT_CHECK_MS,
  requestTimeoutMs: METRICS_REQUEST_TIMEOUT_MS,
  keepAliveTimeoutMs: METRICS_KEEP_ALIVE_MS,
  maxConnections: METRICS_MAX_CONNECTIONS,
} as const;

export const MetricsErrorCode = {
  /** The address is taken, not local, or not allowed (a port below 1024 without the capability). */
  bindFailed: 'metricsBindFailed',
} as const;
export type MetricsErrorCode = (typeof MetricsErrorCode)[keyof typeof MetricsErrorCode];

export class MetricsServerError extends CodedError<MetricsErrorCode> {
  constructor(message: string, code: MetricsErrorCode) {
    super(code, message);
  }
}

export interface MetricsServerOptions {
  readonly bind: HostPort;
  readonly source: MetricsSource;
  readonly logger: Logger;
  /** False while the source cannot answer yet (the daemon starting): scrapes get 503. Default: always ready. */
  readonly ready?: () => boolean;
  /** Where the server comes from (real sockets by default). */
  readonly http?: HttpServerFactory;
}

export interface MetricsServer {
  /** Where it listens (the real port when asked for port 0). */
  readonly address: HostPort;
  /** Stops listening, ends open connections and stops following the event stream. */
  close(): Promise<void>;
}

export type MetricsRoute = 'metrics' | 'index' | 'notFound' | 'methodNotAllowed';

/** GET and HEAD on / and /metrics (a query string is ignored, as Prometheus adds none but a person might). */
export function routeMetricsRequest(method: string | undefined, url: string | undefined): MetricsRoute {
  const path = (url ?? '/').split('?')[0];
  if (path !== '/' && path !== '/metrics') return 'notFound';
  if (method !== 'GET' && method !== 'HEAD') return 'methodNotAllowed';
  return path === '/metrics' ? 'metrics' : 'index';
}

const INDEX_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>mlb daemon</title></head>
<body><h1>mlb daemon</h1><p>Prometheus metrics: <a href="/metrics">/metrics</a></p></body></html>
`;

/** Listens on `bind` and resolves once listening; rejects with MetricsServerError when it cannot. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const { logger } = options;
  const ready = options.ready ?? (() => true);
  const metrics = createMetricsRegistry(options.source);
  const serverOptions = {
    ...SMALL_HTTP_SERVER_LIMITS,
    onShed: (reason: 'evictedIdle' | 'allBusy', open: number) =>
      logger.debug(
        { event: 'metricsConnectionShed', reason, open },
        reason === 'evictedIdle'
          ? 'closed an idle metrics connection to make room'
          : 'refused a metrics connection: every open one is busy',
      ),
    // After start-up a server error (descriptors exhausted on accept) is logged; the daemon keeps running.
    onError: (error: Error) => logger.warn({ event: 'metricsServerError', error: error.message }, 'metrics server error'),
  };
  const onRequest = (req: HttpRequest, res: HttpResponse): void => {
    handle(req, res).catch((error: Error) => {
      logger.warn({ event: 'metricsRequestFailed', error: error.message }, 'a metrics request failed');
      res.destroy();
    });
  };

  async function handle(req: HttpRequest, res: HttpResponse): Promise<void> {
    const route = routeMetricsRequest(req.method, req.url);
    if (route === 'notFound') return reply(res, 404, 'text/plain; charset=utf-8', 'not found: the metrics are at /metrics\n');
    if (route === 'methodNotAllowed') {
      res.setHeader('allow', 'GET, HEAD');
      return reply(res, 405, 'text/plain; charset=utf-8', 'only GET and HEAD\n');
    }
    if (route === 'index') return reply(res, 200, 'text/html; charset=utf-8', INDEX_PAGE);
    if (!ready()) return reply(res, 503, 'text/plain; charset=utf-8', 'the daemon is starting\n');
    try {
      reply(res, 200, metrics.contentType, await metrics.render());
    } catch (error) {
      logger.warn({ event: 'metricsScrapeFailed', error: (error as Error).message }, 'a metrics scrape failed');
      reply(res, 503, 'text/plain; charset=utf-8', `metrics unavailable: ${(error as Error).message}\n`);
    }
  }

  const server = await (options.http ?? realHttpServers)
    .listenHttp({ host: options.bind.host, port: options.bind.port }, serverOptions, onRequest)
    .catch((error: Error) => {
      metrics.close();
      const why = error.cause instanceof Error ? error.cause.message : error.message;
      throw new MetricsServerError(`cannot serve metrics on ${formatHostPort(options.bind)}: ${why}`, MetricsErrorCode.bindFailed);
    });
  const address = 'host' in server.bound ? { host: server.bound.host, port: server.bound.port } : options.bind;
  logger.info({ event: 'metricsListening', bind: formatHostPort(address) }, `metrics on http://${formatHostPort(address)}/metrics`);

  let closing: Promise<void> | undefined;
  return {
    address,
    close() {
      if (!closing) {
        metrics.close();
        closing = server.close();
        server.closeAllConnections();
      }
      return closing;
    },
  };
}

function reply(res: HttpResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
