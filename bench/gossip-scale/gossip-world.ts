/**
 * N GossipNodes on one VirtualNetwork (virtual time, every packet encoded and decoded by the real codecs and
 * carried as bytes), with what bench/gossip-scale measures kept as it happens: who knows whom (join events), who
 * declared whom dead and when, suspicions each node started itself (its own failed probe, not one it heard of),
 * and bytes and packets sent per node over UDP (the node's counters) and TCP (push/pull streams, counted here).
 */
import { GossipNode } from '../../src/gossip/gossip-node';
import type { SwimConfig } from '../../src/gossip/swim';
import { VirtualNetwork, type ByteStream, type Network, type Runtime, type VirtualRuntime } from '../../src/runtime';
import type { Log } from '../../src/runtime/log';
import { REJOIN_INTERVAL_MS } from '../../src/daemon/cluster-membership';
import type { HostPort } from '../../src/gossip';

/** memberlist's default port: every host has its own address, so all use it. */
const GOSSIP_PORT = 7946;
/** One-way latency of a quiet LAN and its jitter (ms): well under every probe timeout. */
const LAN_LATENCY_MS = 0.2;
const LAN_JITTER_MS = 0.1;
/** The reducer's "suspect X (from: Y)" line: Y is who started the suspicion. */
const SUSPECT_LINE = /^suspect (\S+) \(from: (\S+)\)$/;

export interface WorldOptions {
  readonly n: number;
  readonly config: SwimConfig;
  readonly seed: number;
}

interface Tally {
  udpPackets: number;
  udpBytes: number;
  tcpBytes: number;
}

export class GossipWorld {
  readonly net: VirtualNetwork;
  readonly nodes: GossipNode[] = [];
  readonly names: string[] = [];
  /** Members each node holds alive or suspect (itself included), from its join and leave events. */
  private readonly known: number[] = [];
  private everyoneKnows = 0;
  /** Dead declarations: victim -> declarer -> virtual time. */
  readonly deaths = new Map<string, Map<string, number>>();
  /** Suspicions each node started itself, of whom. */
  readonly ownSuspicions: { readonly by: string; readonly of: string; readonly at: number }[] = [];
  private readonly tcp: Tally[] = [];
  private readonly crashed = new Set<string>();
  private readonly runtimes: Runtime[] = [];

  private constructor(private readonly options: WorldOptions) {
    this.net = new VirtualNetwork({ seed: options.seed, link: { latency: LAN_LATENCY_MS, jitter: LAN_JITTER_MS, loss: 0 } });
  }

  static async create(options: WorldOptions): Promise<GossipWorld> {
    const world = new GossipWorld(options);
    for (let i = 0; i < options.n; i++) await world.addNode(i);
    return world;
  }

  get n(): number {
    return this.options.n;
  }

  /**
   * Every node joins node 0 at the same instant; resolves at once (the clock runs in runUntil). A join the seed
   * refuses (it accepts INBOUND_STREAMS_MAX push/pull streams at a time, as memberlist caps them) is tried again
   * every REJOIN_INTERVAL_MS, as the daemon's cluster membership does: a refused node is in nobody's table, and
   * nothing else would ever bring it in.
   */
  joinAllToSeed(): void {
    const seed = this.nodes[0]!.localAddress;
    for (let i = 1; i < this.nodes.length; i++) this.joinUntilAccepted(i, seed);
  }

  /** Join attempts made (the first ones included): more than n - 1 when the seed refused some. */
  joinAttempts = 0;

  private joinUntilAccepted(i: number, seed: HostPort): void {
    this.joinAttempts++;
    void this.nodes[i]!.join([seed]).then((result) => {
      if (result.joined === 0 && this.isLive(this.names[i]!)) {
        this.runtimes[i]!.after(REJOIN_INTERVAL_MS, () => this.joinUntilAccepted(i, seed));
      }
    });
  }

  /** Whether every node holds every other alive. */
  converged(): boolean {
    return this.everyoneKnows === this.nodes.length;
  }

  crash(index: number): string {
    const name = this.names[index]!;
    this.crashed.add(name);
    this.net.crash(ipOf(index));
    return name;
  }

  isLive(name: string): boolean {
    return !this.crashed.has(name);
  }

  /** Declarations of `victim`'s death by live nodes. */
  deathsOf(victim: string): ReadonlyMap<string, number> {
    return this.deaths.get(victim) ?? new Map();
  }

  /** Dead declarations of members that were never crashed. */
  falseDeaths(): number {
    let count = 0;
    for (const [victim, by] of this.deaths) if (this.isLive(victim)) count += by.size;
    return count;
  }

  /** Bytes and packets each live node sent since `resetTraffic`. */
  traffic(): Tally[] {
    return this.nodes.flatMap((node, i) =>
      this.isLive(this.names[i]!)
        ? [{ udpPackets: node.counters.packetsSent, udpBytes: node.counters.bytesSent, tcpBytes: this.tcp[i]!.tcpBytes }]
        : [],
    );
  }

  resetTraffic(): void {
    this.nodes.forEach((node, i) => {
      node.counters.packetsSent = 0;
      node.counters.bytesSent = 0;
      this.tcp[i]!.tcpBytes = 0;
    });
  }

  async close(): Promise<void> {
    for (const node of this.nodes) await node.close();
  }

  private async addNode(i: number): Promise<void> {
    const name = `node-${String(i).padStart(4, '0')}`;
    const host = this.net.host(ipOf(i));
    const tally: Tally = { udpPackets: 0, udpBytes: 0, tcpBytes: 0 };
    this.tcp.push(tally);
    this.known.push(0);
    const runtime = countingRuntime(host, tally);
    this.runtimes.push(runtime);
    const node = await GossipNode.create({
      name,
      bind: { host: ipOf(i), port: GOSSIP_PORT },
      config: this.options.config,
      runtime,
      log: this.suspicionLog(name),
    });
    // Our own alive was stepped at creation, before these listeners: count ourselves.
    this.known[i] = 1;
    node.on('join', () => this.knows(i, +1));
    node.on('leave', (member) => {
      this.knows(i, -1);
      if (member.state !== 'dead') return;
      let by = this.deaths.get(member.name);
      if (!by) this.deaths.set(member.name, (by = new Map()));
      if (!by.has(name)) by.set(name, this.net.now());
    });
    this.nodes.push(node);
    this.names.push(name);
  }

  private knows(i: number, delta: number): void {
    const before = this.known[i]!;
    const after = before + delta;
    this.known[i] = after;
    const n = this.options.n;
    if (before !== n && after === n) this.everyoneKnows++;
    if (before === n && after !== n) this.everyoneKnows--;
  }

  /** A log that keeps the suspicions a node starts itself (the reducer logs every suspicion it starts). */
  private suspicionLog(self: string): Log {
    const ignore = (): void => {};
    return {
      debug: ignore,
      warn: ignore,
      error: ignore,
      info: (fields, msg) => {
        if ((fields as { reason?: string }).reason !== 'suspect' || msg === undefined) return;
        const match = SUSPECT_LINE.exec(msg);
        if (match && match[2] === self) this.ownSuspicions.push({ by: self, of: match[1]!, at: this.net.now() });
      },
    };
  }
}

/** Node i's address in 10.0.0.0/8 (private, RFC 1918): HOSTS_PER_BLOCK per /24, never .0 nor .255. */
export function ipOf(i: number): string {
  const block = Math.floor(i / HOSTS_PER_BLOCK);
  return `10.${(block >> 8) & 255}.${block & 255}.${(i % HOSTS_PER_BLOCK) + 1}`;
}
const HOSTS_PER_BLOCK = 250;

/** The host's runtime, its TCP streams counting the bytes this node writes (push/pull, join, TCP pings). */
function countingRuntime(host: VirtualRuntime, tally: Tally): Runtime {
  const count = (stream: ByteStream): ByteStream => countingStream(stream, tally);
  const net: Network = {
    bindUdp: (bind, handlers) => host.net.bindUdp(bind, handlers),
    listenTcp: (bind, onConnection, onError) => host.net.listenTcp(bind, (s) => onConnection(count(s)), onError),
    connectTcp: async (to, options) => count(await host.net.connectTcp(to, options)),
  };
  return {
    net,
    now: () => host.now(),
    at: host.at,
    after: host.after,
    every: host.every,
    randomInt: host.randomInt,
    random: host.random,
  };
}

function countingStream(stream: ByteStream, tally: Tally): ByteStream {
  return {
    local: stream.local,
    remote: stream.remote,
    onData: (handler) => stream.onData(handler),
    onEnd: (handler) => stream.onEnd(handler),
    onClose: (handler) => stream.onClose(handler),
    write(bytes) {
      tally.tcpBytes += bytes.length;
      stream.write(bytes);
    },
    end(bytes, flushed) {
      tally.tcpBytes += bytes?.length ?? 0;
      stream.end(bytes, flushed);
    },
    destroy: () => stream.destroy(),
  };
}
