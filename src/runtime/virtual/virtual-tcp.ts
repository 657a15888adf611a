/**
 * TCP on a VirtualNetwork: listening, and dialling with the three-way handshake. The SYN and SYN-ACK are
 * retransmitted on loss (1 s initial RTO); a SYN that reaches a host with nothing listening on the port is
 * answered with a reset (the dial fails with 'dialFailed' after one round trip); across a partition, or to an
 * address no host has, nothing answers and the dial fails with 'dialTimeout' at its deadline. The client's
 * connection is up when the SYN-ACK arrives; the server accepts it when the client's ACK does.
 */
import { NetworkError } from '../network-error';
import type { ByteStream, DialOptions, SocketAddress, TcpListener } from '../runtime';
import { isWildcard } from './port-table';
import { addressText } from './socket-address';
import { openPair } from './virtual-byte-stream';
import type { Fabric, VirtualHost } from './virtual-host';
import { carry, carryOnce } from './wire';

export function listenTcp(host: VirtualHost, bind: SocketAddress, onConnection: (stream: ByteStream) => void): Promise<TcpListener> {
  const refuse = (why: string): Promise<TcpListener> =>
    Promise.reject(new NetworkError('bindFailed', `cannot listen on TCP ${addressText(bind)} on ${host.name}: ${why}`));
  if (!host.alive) return refuse('the host is down');
  if (!isWildcard(bind.host) && !host.owns(bind.host)) return refuse('address not available (EADDRNOTAVAIL)');
  const port = host.tcp.bind(bind.host, bind.port, { accept: onConnection });
  if (port === undefined) return refuse('address in use (EADDRINUSE)');
  const listener = {
    kill(): void {
      host.tcp.release(bind.host, port);
      host.open.delete(listener);
    },
  };
  host.open.add(listener);
  return Promise.resolve({
    local: { host: bind.host, port },
    close() {
      listener.kill();
      return Promise.resolve();
    },
  });
}

export function connectTcp(fabric: Fabric, host: VirtualHost, to: SocketAddress, options: DialOptions): Promise<ByteStream> {
  return new Promise((resolve, reject) => {
    const { clock } = fabric;
    const fail = (why: string): void => reject(new NetworkError('dialFailed', `cannot connect to ${addressText(to)}: ${why}`));
    if (!host.alive) return fail('the host is down');
    const localIp = options.localAddress ?? host.sourceFor(to.host);
    if (!host.owns(localIp)) return fail(`${localIp} is not an address of ${host.name} (EADDRNOTAVAIL)`);
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      deadline.cancel();
      return true;
    };
    const deadline = clock.schedule(
      clock.now() + options.timeoutMs,
      () => {
        if (settle()) reject(new NetworkError('dialTimeout', `no TCP connection to ${addressText(to)} within ${options.timeoutMs} ms`));
      },
      host,
    );
    const target = fabric.hostOf(to.host);
    if (!target) return; // no host has the address: nothing answers, the deadline decides
    const established = (): void => {
      if (!settle()) return;
      const localPort = host.tcp.bind(localIp, 0, undefined);
      if (localPort === undefined) return fail('no free ephemeral port');
      const local = { host: localIp, port: localPort };
      const [client, server] = openPair(
        fabric,
        { host, local, release: () => host.tcp.release(localIp, localPort) },
        { host: target, local: to },
      );
      resolve(client);
      carry(fabric, {
        from: host,
        to: target,
        syn: false,
        abandoned: () => client.isClosed,
        arrive: () => {
          const listener = target.alive ? target.tcp.lookup(to.host, to.port) : undefined;
          if (!listener) {
            server.abandon();
            carryOnce(fabric, target, host, () => client.reset());
            return;
          }
          clock.schedule(clock.now(), () => listener.accept(server), target);
        },
      });
    };
    carry(fabric, {
      from: host,
      to: target,
      syn: true,
      abandoned: () => settled,
      arrive: () => {
        const listening = target.alive && target.tcp.lookup(to.host, to.port) !== undefined;
        if (!listening) {
          carryOnce(fabric, target, host, () => settle() && fail('connection refused (ECONNREFUSED)'));
          return;
        }
        carry(fabric, { from: target, to: host, syn: true, abandoned: () => settled, arrive: established });
      },
    });
  });
}
