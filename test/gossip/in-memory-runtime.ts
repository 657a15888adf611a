/**
 * A minimal in-memory Runtime for gossip shell tests: one virtual clock and timer queue shared by every host, and a
 * network that carries UDP datagrams and TCP byte streams between hosts as copied bytes, each after
 * DELIVERY_DELAY_MS of virtual time. Nothing here touches a socket or a real timer, so a GossipNode that works on
 * it gets its time, timers, randomness and I/O from the runtime alone. Deliberately small (no loss, no ordering
 * games): the full virtual runtime lives in src/runtime/virtual.
 */
import {
  NetworkError,
  type ByteStream,
  type Network,
  type Runtime,
  type SocketAddress,
  type Timer,
  type UdpHandlers,
} from '../../src/runtime';

/** Every datagram and stream chunk arrives this long after it was sent: later than now, so order is by the queue. */
export const DELIVERY_DELAY_MS = 1;
/** Where a host's ephemeral ports start (port 0 and outgoing connections). */
const FIRST_EPHEMERAL_PORT = 40_000;
/** An arbitrary epoch for the virtual clock, far from 0 so nothing mistakes it for "unset". */
const VIRTUAL_EPOCH_MS = 1_700_000_000_000;

interface Scheduled {
  readonly at: number;
  readonly seq: number;
  readonly fire: () => void;
  cancelled: boolean;
}

export interface Datagram {
  readonly from: SocketAddress;
  readonly to: SocketAddress;
  readonly bytes: Uint8Array;
}

const key = (a: SocketAddress): string => `${a.host}:${a.port}`;

/** Lets promise continuations (an awaited dial, a resolved read) run before the next virtual event fires. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class InMemoryWorld {
  now = VIRTUAL_EPOCH_MS;
  /** Every datagram sent, in order, for tests that read the wire. */
  readonly datagrams: Datagram[] = [];
  /** Draws of runtime.randomInt, by host. */
  readonly randomDraws = new Map<string, number>();
  private queue: Scheduled[] = [];
  private seq = 0;
  private readonly udp = new Map<string, UdpHandlers>();
  private readonly tcp = new Map<string, (stream: ByteStream) => void>();
  private readonly nextPort = new Map<string, number>();
  /** Hosts whose traffic vanishes (a crashed or cut-off machine). */
  readonly unreachable = new Set<string>();

  /** The runtime a process on `host` is given. */
  runtime(host: string): Runtime {
    let state = host.split('.').reduce((n, part) => n * 31 + Number(part), 7) >>> 0;
    const random = (): number => {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      return state / 2 ** 32;
    };
    return {
      now: () => this.now,
      at: (at, fire) => this.schedule(at, fire),
      after: (ms, fire) => this.schedule(this.now + ms, fire),
      every: (ms, fire) => {
        let current: Timer | undefined;
        const again = (): void => {
          current = this.schedule(this.now + ms, () => {
            again();
            fire();
          });
        };
        again();
        return { cancel: () => current?.cancel() };
      },
      randomInt: (maxExclusive) => {
        this.randomDraws.set(host, (this.randomDraws.get(host) ?? 0) + 1);
        return Math.floor(random() * maxExclusive);
      },
      random,
      net: this.network(host),
    };
  }

  /** Runs every timer and delivery due within the next `ms` of virtual time, in order; the clock ends there. */
  async runFor(ms: number): Promise<void> {
    const end = this.now + ms;
    await settle();
    for (;;) {
      this.queue = this.queue.filter((s) => !s.cancelled);
      const next = this.queue.reduce<Scheduled | undefined>(
        (a, b) => (a === undefined || b.at < a.at || (b.at === a.at && b.seq < a.seq) ? b : a),
        undefined,
      );
      if (!next || next.at > end) break;
      this.queue.splice(this.queue.indexOf(next), 1);
      this.now = Math.max(this.now, next.at);
      next.fire();
      await settle();
    }
    this.now = end;
  }

  private schedule(at: number, fire: () => void): Timer {
    const entry: Scheduled = { at, seq: this.seq++, fire, cancelled: false };
    this.queue.push(entry);
    return { cancel: () => void (entry.cancelled = true) };
  }

  private port(host: string, wanted: number): number {
    if (wanted !== 0) return wanted;
    const port = this.nextPort.get(host) ?? FIRST_EPHEMERAL_PORT;
    this.nextPort.set(host, port + 1);
    return port;
  }

  private network(host: string): Network {
    return {
      bindUdp: async (bind, handlers) => {
        const local = { host: bind.host, port: this.port(host, bind.port) };
        if (this.udp.has(key(local))) throw new NetworkError('bindFailed', `cannot bind UDP ${key(local)}: in use`);
        this.udp.set(key(local), handlers);
        return {
          local,
          send: (to, bytes) => {
            const copy = Uint8Array.from(bytes);
            this.datagrams.push({ from: local, to, bytes: copy });
            if (this.unreachable.has(local.host) || this.unreachable.has(to.host)) return;
            this.schedule(this.now + DELIVERY_DELAY_MS, () => this.udp.get(key(to))?.onMessage(copy, local));
          },
          close: async () => void this.udp.delete(key(local)),
        };
      },
      listenTcp: async (bind, onConnection) => {
        const local = { host: bind.host, port: this.port(host, bind.port) };
        if (this.tcp.has(key(local))) throw new NetworkError('bindFailed', `cannot listen on TCP ${key(local)}: in use`);
        this.tcp.set(key(local), onConnection);
        return { local, close: async () => void this.tcp.delete(key(local)) };
      },
      connectTcp: (to) =>
        new Promise((resolve, reject) => {
          this.schedule(this.now + DELIVERY_DELAY_MS, () => {
            const accept = this.tcp.get(key(to));
            if (!accept || this.unreachable.has(host) || this.unreachable.has(to.host)) {
              reject(new NetworkError('dialFailed', `cannot connect to ${key(to)}: refused`));
              return;
            }
            const [client, server] = this.streamPair({ host, port: this.port(host, 0) }, to);
            accept(server);
            resolve(client);
          });
        }),
    };
  }

  /** Two ends of one connection: what one writes the other reads, DELIVERY_DELAY_MS later. */
  streamPair(a: SocketAddress, b: SocketAddress): [ByteStream, ByteStream] {
    const ends = [
      new StreamEnd(a, b, (fire) => this.schedule(this.now + DELIVERY_DELAY_MS, fire)),
      new StreamEnd(b, a, (fire) => this.schedule(this.now + DELIVERY_DELAY_MS, fire)),
    ] as const;
    ends[0].peer = ends[1];
    ends[1].peer = ends[0];
    return [ends[0], ends[1]];
  }
}

class StreamEnd implements ByteStream {
  peer!: StreamEnd;
  private data: ((chunk: Uint8Array) => void) | undefined;
  private ended: (() => void) | undefined;
  private closed: ((error?: Error) => void) | undefined;
  private isClosed = false;

  constructor(
    readonly local: SocketAddress,
    readonly remote: SocketAddress,
    private readonly later: (fire: () => void) => void,
  ) {}

  onData(handler: (chunk: Uint8Array) => void): void {
    this.data = handler;
  }

  onEnd(handler: () => void): void {
    this.ended = handler;
  }

  onClose(handler: (error?: Error) => void): void {
    this.closed = handler;
  }

  write(bytes: Uint8Array): void {
    if (this.isClosed) return;
    const copy = Uint8Array.from(bytes);
    this.later(() => {
      if (!this.peer.isClosed) this.peer.data?.(copy);
    });
  }

  end(bytes?: Uint8Array, flushed?: () => void): void {
    if (bytes) this.write(bytes);
    this.later(() => {
      flushed?.();
      if (!this.peer.isClosed) this.peer.ended?.();
      // Neither side keeps a half-open connection (Node's default allowHalfOpen: false).
      this.peer.close();
      this.close();
    });
  }

  destroy(): void {
    this.close();
    this.later(() => this.peer.close());
  }

  private close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.closed?.();
  }
}
