/**
 * A whole simulated network in one process (the role memberlist's MockNetwork plays, at the byte level, plus
 * faults): hosts with their own addresses and runtimes on one virtual clock, real bytes carried between their
 * UDP and TCP sockets through a link model (latency, jitter, loss, partitions), and hosts that crash or starve.
 * Everything random comes from the seed, so the same test on the same seed runs the same way.
 *
 * Faults: `partition`/`heal` and the link conditions act on the wire (link-model.ts, wire.ts); `crash` kills a
 * host's process (virtual-host.ts); `starve` makes every task of a host cost CPU time so its work runs late.
 *
 * Time moves only inside `advance`/`runUntil`, so a test must not `await` something that needs virtual time (a
 * TCP dial, a timer) without running the clock meanwhile: start it, then `runUntil` it settles. Binding and
 * listening resolve at once. Vitest's fake timers must leave setImmediate real (the clock turns the loop with it).
 */
import { LinkModel, type LinkConditions } from './link-model';
import { VirtualClock, type RunUntilOptions } from './virtual-clock';
import { VirtualHost, type Fabric, type SentDatagram } from './virtual-host';
import { VirtualRuntime } from './virtual-runtime';

export interface VirtualNetworkOptions {
  readonly seed: number;
  /** Default conditions of every link (the memory network's DEFAULT_LINK otherwise). */
  readonly link?: Partial<LinkConditions>;
  /** Epoch ms the clock starts at (VIRTUAL_EPOCH_MS otherwise). */
  readonly startMs?: number;
}

export class VirtualNetwork implements Fabric {
  readonly clock: VirtualClock;
  readonly link: LinkModel;
  private readonly byIp = new Map<string, VirtualRuntime>();
  private readonly datagramTaps = new Set<(datagram: SentDatagram) => void>();

  constructor(options: VirtualNetworkOptions) {
    this.clock = new VirtualClock(options.startMs);
    this.link = new LinkModel(options.seed, options.link);
  }

  /**
   * The runtime of the host with these addresses (the first names it), created on first use. After `crash`, the
   * same call boots a fresh process on the same addresses: new sockets, new timers, a new random stream.
   */
  host(ip: string, ...more: string[]): VirtualRuntime {
    const existing = this.byIp.get(ip);
    if (existing?.host.alive) {
      if (more.some((m) => !existing.host.owns(m))) throw new Error(`host ${ip} exists with addresses ${existing.host.ips.join(', ')}`);
      return existing;
    }
    const ips = [ip, ...more];
    for (const other of ips) {
      const owner = this.byIp.get(other);
      if (owner?.host.alive) throw new Error(`${other} belongs to host ${owner.host.name}`);
    }
    const runtime = new VirtualRuntime(this, new VirtualHost(ips), this.link.nextSeed());
    for (const other of ips) this.byIp.set(other, runtime);
    return runtime;
  }

  hostOf(ip: string): VirtualHost | undefined {
    return this.byIp.get(ip)?.host;
  }

  now(): number {
    return this.clock.now();
  }

  advance(ms: number): Promise<void> {
    return this.clock.advance(ms);
  }

  runUntil(done: () => boolean, options: RunUntilOptions): Promise<boolean> {
    return this.clock.runUntil(done, options);
  }

  /**
   * Calls `tap` with every datagram any host sends from now on, as sent (a packet capture on every host): a test
   * decodes them with the real codecs. Returns the function that removes the tap.
   */
  tapDatagrams(tap: (datagram: SentDatagram) => void): () => void {
    this.datagramTaps.add(tap);
    return () => this.datagramTaps.delete(tap);
  }

  datagramSent(datagram: SentDatagram): void {
    for (const tap of this.datagramTaps) tap(datagram);
  }

  /** Default conditions of every link without its own. */
  setLink(conditions: Partial<LinkConditions>): void {
    this.link.setLink(conditions);
  }

  /** Conditions of the one-way link from -> to (hosts named by their first address). */
  setLinkBetween(from: string, to: string, conditions: Partial<LinkConditions>): void {
    this.link.setLinkBetween(from, to, conditions);
  }

  /** Hosts (by first address) in different groups cannot reach each other; a host in no group reaches nobody. */
  partition(...groups: readonly (readonly string[])[]): void {
    this.link.partition(groups);
  }

  heal(): void {
    this.link.heal();
  }

  /**
   * The host's process dies: its timers never fire, its sockets close (peers' streams get the FIN, new connects are
   * refused, datagrams to it vanish). Its addresses stay with the dead host until `host(ip)` boots a new one. A
   * machine that goes silent instead (no FIN, no refusal) is a partition that leaves it alone in no group.
   */
  crash(ip: string): void {
    this.mustGet(ip).host.crash();
  }

  /** Every task of the host (timers, received datagrams and bytes) costs `costMs` of virtual CPU time; 0 ends it. */
  starve(ip: string, costMs: number): void {
    this.mustGet(ip).host.costMs = Math.max(0, costMs);
  }

  private mustGet(ip: string): VirtualRuntime {
    const runtime = this.byIp.get(ip);
    if (!runtime) throw new Error(`no virtual host has ${ip}`);
    return runtime;
  }
}

/** A runtime for a test that needs only one host (timers, randomness, sockets to itself). */
export function virtualRuntime(options: { seed: number; ip?: string; startMs?: number }): VirtualRuntime {
  return new VirtualNetwork(options).host(options.ip ?? STANDALONE_IP);
}

/** The one host of `virtualRuntime` (TEST-NET-1, RFC 5737: documentation addresses, never routed). */
const STANDALONE_IP = '192.0.2.1';
