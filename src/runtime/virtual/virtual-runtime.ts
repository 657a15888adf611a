/**
 * The Runtime of one simulated host: its timers on the shared virtual clock (owned by the host, so they stop
 * when it crashes and run late when it is starved), its own seeded randomness, and its sockets on the shared
 * virtual network. `advance` and `runUntil` move the one clock every host shares.
 */
import type { ByteStream, DialOptions, Network, Runtime, SocketAddress, TcpListener, Timer, UdpEndpoint, UdpHandlers } from '../runtime';
import type { HostIo } from '../host-io';
import { seededRandomness } from './seeded-randomness';
import type { RunUntilOptions } from './virtual-clock';
import type { Fabric, VirtualHost } from './virtual-host';
import { virtualScheduler } from './virtual-scheduler';
import { connectTcp, listenTcp } from './virtual-tcp';
import { bindUdp } from './virtual-udp';
import { virtualHostIo } from './virtual-host-io';

export class VirtualRuntime implements Runtime {
  readonly net: Network;
  /** BGP's TCP over this host's virtual TCP; HTTP and TTL-aware UDP refused (virtual-host-io.ts). */
  readonly hostIo: HostIo;
  readonly at: (at: number, fire: () => void) => Timer;
  readonly after: (ms: number, fire: () => void) => Timer;
  readonly every: (ms: number, fire: () => void) => Timer;
  readonly randomInt: (maxExclusive: number) => number;
  readonly random: () => number;

  constructor(
    private readonly fabric: Fabric,
    readonly host: VirtualHost,
    seed: number,
  ) {
    const scheduler = virtualScheduler(fabric.clock, host);
    this.at = scheduler.at;
    this.after = scheduler.after;
    this.every = scheduler.every;
    const randomness = seededRandomness(seed);
    this.randomInt = randomness.randomInt;
    this.random = randomness.random;
    this.net = {
      bindUdp: (bind: SocketAddress, handlers: UdpHandlers): Promise<UdpEndpoint> => bindUdp(fabric, host, bind, handlers),
      listenTcp: (bind: SocketAddress, onConnection: (stream: ByteStream) => void): Promise<TcpListener> =>
        listenTcp(host, bind, onConnection),
      connectTcp: (to: SocketAddress, options: DialOptions): Promise<ByteStream> => connectTcp(fabric, host, to, options),
    };
    this.hostIo = virtualHostIo(this.net, (peer) => host.sourceFor(peer));
  }

  now(): number {
    return this.fabric.clock.now();
  }

  /** The host's first address. */
  get address(): string {
    return this.host.name;
  }

  /** Runs the whole network's clock forward by `ms` virtual ms. */
  advance(ms: number): Promise<void> {
    return this.fabric.clock.advance(ms);
  }

  /** Runs the whole network's clock until `done()` holds or `timeoutMs` virtual ms pass; resolves whether it held. */
  runUntil(done: () => boolean, options: RunUntilOptions): Promise<boolean> {
    return this.fabric.clock.runUntil(done, options);
  }
}
