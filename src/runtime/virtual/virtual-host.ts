/**
 * One simulated machine of a VirtualNetwork: its addresses, its ports, its CPU and whether its process is alive.
 * Crashing it kills the process, not the kernel: its sockets close (peers see the FIN, later connects are refused,
 * datagrams to it vanish) and its timers never fire.
 */
import type { LinkModel } from './link-model';
import { isIpv6, PortTable } from './port-table';
import type { ByteStream, SocketAddress } from '../runtime';
import type { TaskOwner, VirtualClock } from './virtual-clock';

/** What the sockets of every host share: the clock, the wire, and who owns an address. */
export interface Fabric {
  readonly clock: VirtualClock;
  readonly link: LinkModel;
  /** The host (alive or crashed) that owns `ip`, if any. */
  hostOf(ip: string): VirtualHost | undefined;
  /** A datagram left a socket (before loss or partitions decide its fate): what a capture on the sender sees. */
  datagramSent(datagram: SentDatagram): void;
}

/** One UDP datagram as it left its sender: the bytes are the copy the wire carries. */
export interface SentDatagram {
  readonly from: SocketAddress;
  readonly to: SocketAddress;
  readonly bytes: Uint8Array;
}

/** A bound UDP socket, as the port table holds it. */
interface UdpBinding {
  receive(bytes: Uint8Array, from: SocketAddress): void;
}

/** A listening TCP socket, as the port table holds it. */
interface TcpBinding {
  accept(stream: ByteStream): void;
}

export class VirtualHost implements TaskOwner {
  alive = true;
  costMs = 0;
  busyUntil = Number.NEGATIVE_INFINITY;
  readonly udp = new PortTable<UdpBinding>();
  readonly tcp = new PortTable<TcpBinding>();
  /** What a crash tears down: every socket, listener and stream still open. */
  readonly open = new Set<{ kill(): void }>();

  /** `name` is the host's first address; partitions and link conditions name hosts by it. */
  constructor(readonly ips: readonly string[]) {
    if (ips.length === 0) throw new Error('a virtual host needs at least one address');
  }

  get name(): string {
    return this.ips[0]!;
  }

  owns(ip: string): boolean {
    return this.ips.includes(ip);
  }

  /** When something sent now leaves: at once, or when the starved CPU finishes the task sending it. */
  departure(now: number): number {
    return this.costMs > 0 ? Math.max(now, this.busyUntil) : now;
  }

  /** The source address for traffic to `destination`: the host's first address of the same family. */
  sourceFor(destination: string): string {
    return this.ips.find((ip) => isIpv6(ip) === isIpv6(destination)) ?? this.name;
  }

  /** The process dies (see the file comment). */
  crash(): void {
    this.alive = false;
    for (const socket of [...this.open]) socket.kill();
    this.open.clear();
  }
}
