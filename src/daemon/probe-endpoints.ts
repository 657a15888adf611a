/**
 * `/healthz` and `/readyz` as Kubernetes probes them (MetalLB v0.16 serves both from controller-runtime's health
 * probe address, port 17472): `/healthz` 200 while the process serves, `/readyz` 200 once `ready()` holds and 503
 * with what it waits for before. One handler for the controller and the speaker, on a server from the runtime's
 * HTTP factory.
 */
import type { HostPort } from '../gossip/transport/address';
import type { HttpRequest, HttpResponse, HttpServerFactory, HttpServerOptions } from '../runtime/http';
import { realHttpServers } from '../runtime/real-http-server';
import { SMALL_HTTP_SERVER_LIMITS } from './metrics/metrics-server';

/** The metrics server's limits (metrics/metrics-server.ts): a stalled prober cannot hold connections or descriptors. */
export const SMALL_HTTP_SERVER_OPTIONS: HttpServerOptions = SMALL_HTTP_SERVER_LIMITS;

export function plainText(res: HttpResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain' });
  res.end(body);
}

/** Answers the two probes; `notReady` says what readiness waits for ("waiting for the first reconcile"). */
export function probeHandler(ready: () => boolean, notReady: string): (req: HttpRequest, res: HttpResponse) => void {
  return (req, res) => {
    req.resume();
    const path = (req.url ?? '').split('?')[0];
    if (path === '/healthz') plainText(res, 200, 'ok\n');
    else if (path === '/readyz') {
      if (ready()) plainText(res, 200, 'ok\n');
      else plainText(res, 503, `not ready: ${notReady}\n`);
    } else plainText(res, 404, 'not found: try /healthz or /readyz\n');
  };
}

export interface ProbeServer {
  /** Where it listens (the real port when asked for port 0). */
  readonly address: HostPort;
  close(): Promise<void>;
}

/** Serves the probes on `bind`; rejects (NetworkError bindFailed, naming the errno) when it cannot listen. */
export async function startProbeServer(
  bind: HostPort,
  ready: () => boolean,
  notReady: string,
  http: HttpServerFactory = realHttpServers,
): Promise<ProbeServer> {
  const server = await http.listenHttp(bind, SMALL_HTTP_SERVER_OPTIONS, probeHandler(ready, notReady));
  const address = 'host' in server.bound ? { host: server.bound.host, port: server.bound.port } : bind;
  return {
    address,
    close: () => {
      const closed = server.close();
      server.closeAllConnections();
      return closed;
    },
  };
}
