/**
 * UDP on a VirtualNetwork: a datagram is a copy of the bytes sent, delivered after the link's delay to whatever
 * socket holds the destination address and port when it arrives, on the receiver's CPU. It is lost with the
 * link's probability, and never crosses a partition (checked when it arrives); a datagram nobody is bound for
 * vanishes, as it does when the kernel's ICMP port-unreachable is ignored.
 */
import { NetworkError } from '../network-error';
import type { SocketAddress, UdpEndpoint, UdpHandlers } from '../runtime';
import { isWildcard } from './port-table';
import { addressText } from './socket-address';
import type { Fabric, VirtualHost } from './virtual-host';

/** The largest UDP payload over IPv4 (65,535 minus the IP and UDP headers); a larger send fails with EMSGSIZE. */
const MAX_UDP_PAYLOAD_BYTES = 65_507;

export function bindUdp(fabric: Fabric, host: VirtualHost, bind: SocketAddress, handlers: UdpHandlers): Promise<UdpEndpoint> {
  const refuse = (why: string): Promise<UdpEndpoint> =>
    Promise.reject(new NetworkError('bindFailed', `cannot bind UDP ${addressText(bind)} on ${host.name}: ${why}`));
  if (!host.alive) return refuse('the host is down');
  if (!isWildcard(bind.host) && !host.owns(bind.host)) return refuse('address not available (EADDRNOTAVAIL)');
  let open = true;
  const port = host.udp.bind(bind.host, bind.port, {
    receive: (bytes, from) => {
      if (open) handlers.onMessage(bytes, from);
    },
  });
  if (port === undefined) return refuse('address in use (EADDRINUSE)');
  const socket = {
    kill(): void {
      open = false;
      host.udp.release(bind.host, port);
      host.open.delete(socket);
    },
  };
  host.open.add(socket);
  return Promise.resolve({
    local: { host: bind.host, port },
    send(to, bytes) {
      if (!open) return handlers.onError?.(new Error(`udp send to ${addressText(to)}: socket is closed`));
      if (bytes.byteLength > MAX_UDP_PAYLOAD_BYTES) {
        return handlers.onError?.(new Error(`udp send to ${addressText(to)}: ${bytes.byteLength} bytes is too long (EMSGSIZE)`));
      }
      const from = { host: isWildcard(bind.host) ? host.sourceFor(to.host) : bind.host, port };
      sendDatagram(fabric, host, from, to, bytes.slice());
    },
    close() {
      socket.kill();
      return Promise.resolve();
    },
  });
}

function sendDatagram(fabric: Fabric, sender: VirtualHost, from: SocketAddress, to: SocketAddress, bytes: Uint8Array): void {
  const { clock, link } = fabric;
  fabric.datagramSent({ from, to, bytes });
  const target = fabric.hostOf(to.host);
  if (!target || link.lost(sender.name, target.name)) return;
  const arrival = sender.departure(clock.now()) + link.delay(sender.name, target.name);
  clock.schedule(
    arrival,
    () => {
      if (!link.reachable(sender.name, target.name)) return;
      target.udp.lookup(to.host, to.port)?.receive(bytes, from);
    },
    target,
  );
}
