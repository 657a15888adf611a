/**
 * The speaker's probes in Kubernetes mode, where MetalLB v0.16's speaker serves them (controller-runtime's health
 * probe address, port 17472): `/healthz` answers 200 while the process serves, `/readyz` 200 once the
 * configuration has been read from the API and the first gossip join is over, 503 before. Bound to 127.0.0.1 by
 * default: a host-network pod would otherwise expose it on every host address, and the kubelet probes locally.
 */
import type { HostPort } from '../../gossip/transport/address';
import type { HttpServerFactory } from '../../runtime/http';
import { startProbeServer, type ProbeServer } from '../probe-endpoints';

export const SPEAKER_HEALTH_BIND: HostPort = { host: '127.0.0.1', port: 17472 };

export type SpeakerHealthServer = ProbeServer;

export function startSpeakerHealthServer(bind: HostPort, ready: () => boolean, http?: HttpServerFactory): Promise<SpeakerHealthServer> {
  return startProbeServer(bind, ready, 'reading the API or joining gossip', http);
}
