/**
 * The controller's two plain-HTTP endpoints: /metrics on --metrics-bind (MetalLB's allocator gauges per pool,
 * same names as MetalLB's controller: metallb_allocator_addresses_total, metallb_allocator_addresses_in_use_total
 * and their ipv4_/ipv6_ variants) and /healthz, /readyz on --health-bind (ready once every cache has listed and
 * the first reconcile ran, as controller-runtime's probes MetalLB's Deployment points at).
 */
import { Gauge, Registry } from 'prom-client';
import type { PoolUsage } from '../allocator';
import type { HostPort } from '../gossip/transport/address';
import type { HttpRequest, HttpResponse, HttpServer, HttpServerFactory } from '../runtime/http';
import { plainText, probeHandler, SMALL_HTTP_SERVER_OPTIONS } from '../daemon/probe-endpoints';
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

function metricsHandler(registry: Registry): (req: HttpRequest, res: HttpResponse) => void {
  return (req, res) => {
    req.resume();
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') return plainText(res, 404, 'not found: try /metrics\n');
    registry.metrics().then(
      (body) => {
        res.writeHead(200, { 'Content-Type': registry.contentType });
        res.end(body);
      },
      (error: Error) => plainText(res, 503, `${error.message}\n`),
    );
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
    const metrics = await http.listenHttp(metricsBind, SMALL_HTTP_SERVER_OPTIONS, metricsHandler(controllerRegistry(probe)));
    servers.push(metrics);
    const health = await http.listenHttp(
      healthBind,
      SMALL_HTTP_SERVER_OPTIONS,
      probeHandler(() => probe.ready, 'waiting for the first reconcile'),
    );
    servers.push(health);
    return { metrics: boundAddress(metrics, metricsBind), health: boundAddress(health, healthBind), close };
  } catch (error) {
    await close();
    throw error;
  }
}
