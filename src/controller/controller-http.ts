/**
 * The controller's two plain-HTTP endpoints: /metrics on --metrics-bind (MetalLB's allocator gauges per pool,
 * same names as MetalLB's controller: metallb_allocator_addresses_total, metallb_allocator_addresses_in_use_total
 * and their ipv4_/ipv6_ variants) and /healthz, /readyz on --health-bind (ready once every cache has listed and
 * the first reconcile ran, as controller-runtime's probes MetalLB's Deployment points at).
 */
import { Gauge, Registry } from 'prom-client';
import type { PoolUsage } from '../allocator';
import type { HostPort } from '../gossip/transport/address';
import type { HttpRequest, HttpResponse, HttpServer, HttpServerFactory, HttpServerOptions } from '../runtime/http';
import { realHttpServers } from '../runtime/real-http-server';

export interface ControllerProbe {
  readonly ready: boolean;
  readonly configLoaded: boolean;
  readonly usage: readonly PoolUsage[];
}

type PoolGauge = readonly [name: string, help: string, value: (p: PoolUsage) => number];

const POOL_GAUGES: readonly PoolGauge[] = [
  ['metallb_allocator_addresses_total', 'Usable addresses in the pool', (p) => Number(p.total)],
  ['metallb_allocator_ipv4_addresses_total', 'Usable IPv4 addresses in the pool', (p) => Number(p.totalIPv4)],
  ['metallb_allocator_ipv6_addresses_total', 'Usable IPv6 addresses in the pool', (p) => Number(p.totalIPv6)],
  ['metallb_allocator_addresses_in_use_total', 'Addresses of the pool held by at least one service', (p) => p.inUse],
  ['metallb_allocator_ipv4_addresses_in_use_total', 'IPv4 addresses of the pool held by at least one service', (p) => p.inUseIPv4],
  ['metallb_allocator_ipv6_addresses_in_use_total', 'IPv6 addresses of the pool held by at least one service', (p) => p.inUseIPv6],
];

function controllerRegistry(probe: ControllerProbe): Registry {
  const registry = new Registry();
  for (const [name, help, value] of POOL_GAUGES) {
    new Gauge({
      name,
      help,
      labelNames: ['pool'],
      registers: [registry],
      collect() {
        this.reset();
        for (const p of probe.usage) this.set({ pool: p.pool }, value(p));
      },
    });
  }
  new Gauge({
    name: 'metallb_k8s_client_config_loaded_bool',
    help: '1 once a valid configuration has been loaded from the cluster',
    registers: [registry],
    collect() {
      this.set(probe.configLoaded ? 1 : 0);
    },
  });
  return registry;
}

export interface ControllerHttp {
  readonly metrics: HostPort;
  readonly health: HostPort;
  close(): Promise<void>;
}

/**
 * Limits of the two small servers, as the speaker's metrics server has them (src/daemon/metrics/metrics-server.ts):
 * a scraper or prober that stalls cannot hold a connection or the process's descriptors.
 */
const CONTROLLER_HTTP_OPTIONS: HttpServerOptions = {
  requestTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  timeoutCheckMs: 1_000,
  maxConnections: 32,
};

function text(res: HttpResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain' });
  res.end(body);
}

function metricsHandler(registry: Registry): (req: HttpRequest, res: HttpResponse) => void {
  return (req, res) => {
    req.resume();
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') return text(res, 404, 'not found: try /metrics\n');
    registry.metrics().then(
      (body) => {
        res.writeHead(200, { 'Content-Type': registry.contentType });
        res.end(body);
      },
      (error: Error) => text(res, 503, `${error.message}\n`),
    );
  };
}

function healthHandler(probe: ControllerProbe): (req: HttpRequest, res: HttpResponse) => void {
  return (req, res) => {
    req.resume();
    const path = (req.url ?? '').split('?')[0];
    if (path === '/healthz') text(res, 200, 'ok\n');
    else if (path === '/readyz') {
      if (probe.ready) text(res, 200, 'ok\n');
      else text(res, 503, 'not ready: waiting for the first reconcile\n');
    } else text(res, 404, 'not found: try /healthz or /readyz\n');
  };
}

const boundAddress = (server: HttpServer, bind: HostPort): HostPort =>
  'host' in server.bound ? { host: server.bound.host, port: server.bound.port } : bind;

/** The controller's /metrics and /healthz, /readyz, on servers from the runtime's factory (real sockets by default). */
export async function startControllerHttp(
  metricsBind: HostPort,
  healthBind: HostPort,
  probe: ControllerProbe,
  http: HttpServerFactory = realHttpServers,
): Promise<ControllerHttp> {
  const servers: HttpServer[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(
      servers.map((s) => {
        const closed = s.close();
        s.closeAllConnections();
        return closed;
      }),
    );
  };
  try {
    const metrics = await http.listenHttp(metricsBind, CONTROLLER_HTTP_OPTIONS, metricsHandler(controllerRegistry(probe)));
    servers.push(metrics);
    const health = await http.listenHttp(healthBind, CONTROLLER_HTTP_OPTIONS, healthHandler(probe));
    servers.push(health);
    return { metrics: boundAddress(metrics, metricsBind), health: boundAddress(health, healthBind), close };
  } catch (error) {
    await close();
    throw error;
  }
}
