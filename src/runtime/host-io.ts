/**
 * The host facilities beyond the Runtime's Network, in one bundle a shell can be handed: MD5-signable TCP (BGP),
 * TTL-aware UDP (BFD), HTTP servers (metrics, control socket) and an HTTP client (health checks).
 * A VirtualRuntime's `hostIo` is the virtual network's (virtual/virtual-host-io.ts); on this machine each has its
 * real-*.ts implementation beside it, which the shells take by default.
 */
import type { HttpClient, HttpServerFactory } from './http';
import type { SignedTcpNetwork } from './signed-tcp';
import type { TtlUdpNetwork } from './ttl-udp';

export interface HostIo {
  readonly signedTcp: SignedTcpNetwork;
  readonly ttlUdp: TtlUdpNetwork;
  readonly httpServers: HttpServerFactory;
  readonly httpClient: HttpClient;
}
