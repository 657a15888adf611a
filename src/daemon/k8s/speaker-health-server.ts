/**
 * The speaker's probes in Kubernetes mode, where MetalLB v0.16's speaker serves them (controller-runtime's health
 * probe address, port 17472): `/healthz` answers 200 while the process serves, `/readyz` 200 once the
 * configuration has been read from the API and the first gossip join is over, 503 before. Bound to 127.0.0.1 by
 * default: a host-network pod would otherwise expose it on every host address, and the kubelet probes locally.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostPort } from '../../gossip/transport/address';

export const SPEAKER_HEALTH_BIND: HostPort = { host: '127.0.0.1', port: 17472 };

export interface SpeakerHealthServer {
  readonly address: HostPort;
  close(): Promise<void>;
}

export async function startSpeakerHealthServer(bind: HostPort, ready: () => boolean): Promise<SpeakerHealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/healthz') res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok\n');
    else if (path === '/readyz') {
      const ok = ready();
      res.writeHead(ok ? 200 : 503, { 'Content-Type': 'text/plain' }).end(ok ? 'ok\n' : 'not ready: reading the API or joining gossip\n');
    } else res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: /healthz or /readyz\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(bind.port, bind.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    address: { host: bind.host, port },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
