/**
 * The controller's two plain-HTTP endpoints: /metrics on --metrics-bind (MetalLB's allocator gauges per pool,
 * same names as MetalLB's controller: metallb_allocator_addresses_total, metallb_allocator_addresses_in_use_total
 * and their ipv4_/ipv6_ variants) and /healthz, /readyz on --health-bind (ready once every cache has listed and
 * the first reconcile ran, as controller-runtime's probes MetalLB's Deployment points at).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Gauge, Registry } from 'prom-client';
import type { PoolUsage } from '../allocator';
import type { HostPort } from '../gossip/transport/address';

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

async function listen(server: Server, bind: HostPort): Promise<HostPort> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(bind.port, bind.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return { host: bind.host, port: address.port };
}

export async function startControllerHttp(metricsBind: HostPort, healthBind: HostPort, probe: ControllerProbe): Promise<ControllerHttp> {
  const registry = controllerRegistry(probe);
  const metrics = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: try /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      (error: Error) => res.writeHead(503, { 'Content-Type': 'text/plain' }).end(`${error.message}\n`),
    );
  });
  const health = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/healthz') res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok\n');
    else if (path === '/readyz') {
      if (probe.ready) res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok\n');
      else res.writeHead(503, { 'Content-Type': 'text/plain' }).end('not ready: waiting for the first reconcile\n');
    } else res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: try /healthz or /readyz\n');
  });
  const servers = [metrics, health];
  const close = async (): Promise<void> => {
    await Promise.all(
      servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.close(() => resolve());
            s.closeAllConnections();
          }),
      ),
    );
  };
  try {
    return { metrics: await listen(metrics, metricsBind), health: await listen(health, healthBind), close };
  } catch (error) {
    await close();
    throw error;
  }
}
