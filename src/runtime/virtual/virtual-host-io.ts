/**
 * The host facilities (../host-io.ts) of a virtual host.
 *
 * - Signed TCP is the virtual network's plain TCP, so BGP sessions run between virtual hosts: no MD5 (the
 *   virtual wire carries no TCP options; md5Available() is false, so a peer with a password is refused exactly as
 *   on a host without the addon), and the route's source address is the host's own of the peer's family.
 * - HTTP and TTL-aware UDP are not simulated: no whole-cluster test serves metrics, a control socket or BFD. They
 *   throw (or reject with) NetworkError('notOnVirtualNetwork'), naming what was asked for, rather than reaching
 *   for a real socket behind the simulation's back.
 */
import type { HostIo } from '../host-io';
import type { HttpClient, HttpServerFactory } from '../http';
import { NetworkError } from '../network-error';
import type { ByteStream, Network } from '../runtime';
import type { SignedTcpNetwork } from '../signed-tcp';
import type { TtlUdpNetwork } from '../ttl-udp';

function unavailable(what: string): NetworkError {
  return new NetworkError('notOnVirtualNetwork', `${what} is not available on the virtual network (it simulates UDP and plain TCP only)`);
}

const VIRTUAL_HTTP_SERVERS: HttpServerFactory = {
  listenHttp: () => Promise.reject(unavailable('an HTTP server')),
  probeUnixSocket: () => Promise.reject(unavailable('a unix socket')),
};

const VIRTUAL_HTTP_CLIENT: HttpClient = {
  get: () => {
    throw unavailable('an HTTP client');
  },
};

const VIRTUAL_TTL_UDP: TtlUdpNetwork = {
  bindTtlReceiver: () => Promise.reject(unavailable('TTL-aware UDP (BFD)')),
  bindTtlSender: () => Promise.reject(unavailable('TTL-aware UDP (BFD)')),
};

/** Signed TCP over a virtual host's Network: plain TCP, no MD5 (see the file comment). */
function virtualSignedTcp(net: Network, sourceFor: (peer: string) => string): SignedTcpNetwork {
  return {
    md5Available: () => false,
    async connectSigned(to, options) {
      if (options.md5Password !== undefined) throw unavailable('TCP MD5 (RFC 2385)');
      if (options.signal?.aborted) throw new NetworkError('dialFailed', `the dial to ${to.host} was given up`);
      const dialing = net.connectTcp(to, {
        timeoutMs: options.timeoutMs,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      });
      const { signal } = options;
      if (!signal) return dialing;
      return new Promise<ByteStream>((resolve, reject) => {
        const onAbort = (): void => reject(new NetworkError('dialFailed', `the dial to ${to.host} was given up`));
        signal.addEventListener('abort', onAbort, { once: true });
        dialing.then(
          (stream) => {
            signal.removeEventListener('abort', onAbort);
            // Given up while the handshake finished: the connection is not wanted.
            if (signal.aborted) stream.destroy();
            else resolve(stream);
          },
          (error: unknown) => {
            signal.removeEventListener('abort', onAbort);
            reject(error as Error);
          },
        );
      });
    },
    async listenKeyed(bind, keys, onConnection, onError) {
      if (keys.size > 0) throw unavailable('TCP MD5 (RFC 2385)');
      const listener = await net.listenTcp(bind, onConnection, onError);
      return {
        local: listener.local,
        keyed: false,
        setPeerKey: () => {
          throw unavailable('TCP MD5 (RFC 2385)');
        },
        close: () => listener.close(),
      };
    },
    sourceAddressFor: (peer) => Promise.resolve(sourceFor(peer)),
  };
}

/** The host facilities of one virtual host, given its Network and its source-address choice. */
export function virtualHostIo(net: Network, sourceFor: (peer: string) => string): HostIo {
  return {
    signedTcp: virtualSignedTcp(net, sourceFor),
    ttlUdp: VIRTUAL_TTL_UDP,
    httpServers: VIRTUAL_HTTP_SERVERS,
    httpClient: VIRTUAL_HTTP_CLIENT,
  };
}
