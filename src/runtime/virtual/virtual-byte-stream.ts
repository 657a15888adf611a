/**
 * One end of a virtual TCP connection, with node:net's semantics as real-network.ts adapts them: chunks arrive in
 * order (each a copy of what was written), `end` sends a FIN after the data, the peer's FIN raises onEnd and ends
 * this side too (Node's default, allowHalfOpen false), and onClose runs once, on a later task, when both FINs are
 * through, after destroy, or with an error on a reset or when TCP gives up retransmitting. Data reaching an end
 * that is already closed is answered with a reset, as a kernel does for a socket nobody holds any more.
 */
import type { ByteStream, SocketAddress } from '../runtime';
import type { Fabric, VirtualHost } from './virtual-host';
import { carry, carryOnce } from './wire';

/** A data chunk, or the FIN when `bytes` is undefined. */
interface Chunk {
  readonly seq: number;
  readonly bytes: Uint8Array | undefined;
}

/** An Error with the errno code Node would give (ECONNRESET, ETIMEDOUT). */
function socketError(code: string, message: string): Error {
  return Object.assign(new Error(`${message} (${code})`), { code });
}

export class StreamEnd implements ByteStream {
  peer!: StreamEnd;
  private dataHandler: ((chunk: Uint8Array) => void) | undefined;
  private endHandler: (() => void) | undefined;
  private closeHandler: ((error?: Error) => void) | undefined;
  private sendSeq = 0;
  private deliverSeq = 0;
  /** Chunks that overtook an earlier one (a retransmission), held until the gap fills. */
  private readonly outOfOrder = new Map<number, Chunk>();
  /** Chunks in order, not yet handed to the application (it has no data handler yet, or its CPU is busy). */
  private readonly inbox: Chunk[] = [];
  private sentFin = false;
  private closed = false;
  /** Reset or timed out: this end's segments are no longer retransmitted. */
  private aborted = false;

  constructor(
    private readonly fabric: Fabric,
    readonly host: VirtualHost,
    readonly local: SocketAddress,
    readonly remote: SocketAddress,
    /** Frees what the end holds (its ephemeral port) once closed. */
    private readonly release: () => void = () => {},
  ) {
    host.open.add(this);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  onData(handler: (chunk: Uint8Array) => void): void {
    this.dataHandler = handler;
    if (this.inbox.length > 0) this.schedulePump();
  }

  onEnd(handler: () => void): void {
    this.endHandler = handler;
  }

  onClose(handler: (error?: Error) => void): void {
    this.closeHandler = handler;
  }

  write(bytes: Uint8Array): void {
    // Node reports a write after end as an error that destroys the socket; a virtual one ignores it.
    if (this.closed || this.sentFin) return;
    this.send(bytes.slice());
  }

  end(bytes?: Uint8Array, flushed?: () => void): void {
    if (bytes) this.write(bytes);
    if (this.closed || this.sentFin) return;
    this.sentFin = true;
    this.send(undefined);
    if (flushed) this.fabric.clock.schedule(this.host.departure(this.fabric.clock.now()), flushed, this.host);
  }

  destroy(): void {
    if (this.closed) return;
    this.sendFinOnce();
    this.finish(undefined);
  }

  /** The process holding this end died: the kernel sends the FIN, the application hears nothing more. */
  kill(): void {
    if (this.closed) return;
    this.sendFinOnce();
    this.closed = true;
    this.release();
  }

  /** Never accepted (the listener went away during the handshake): gone without a word; the client is reset. */
  abandon(): void {
    this.closed = true;
    this.host.open.delete(this);
  }

  /** The peer reset the connection (RST). */
  reset(): void {
    if (this.closed) return;
    this.aborted = true;
    this.finish(socketError('ECONNRESET', `connection to ${this.remote.host}:${this.remote.port} reset by peer`));
  }

  /** A segment got through to this end (a wire task). */
  arrive(chunk: Chunk): void {
    if (this.closed) {
      if (chunk.bytes) carryOnce(this.fabric, this.host, this.peer.host, () => this.peer.reset());
      return;
    }
    this.outOfOrder.set(chunk.seq, chunk);
    for (let next = this.outOfOrder.get(this.deliverSeq); next; next = this.outOfOrder.get(this.deliverSeq)) {
      this.outOfOrder.delete(this.deliverSeq);
      this.deliverSeq += 1;
      this.inbox.push(next);
    }
    this.schedulePump();
  }

  private send(bytes: Uint8Array | undefined): void {
    const chunk: Chunk = { seq: this.sendSeq++, bytes };
    carry(this.fabric, {
      from: this.host,
      to: this.peer.host,
      syn: false,
      arrive: () => this.peer.arrive(chunk),
      abandoned: () => this.aborted,
      giveUp: () => this.timedOut(),
    });
  }

  private sendFinOnce(): void {
    if (this.sentFin) return;
    this.sentFin = true;
    this.send(undefined);
  }

  private timedOut(): void {
    if (this.closed) return;
    this.aborted = true;
    this.finish(socketError('ETIMEDOUT', `no acknowledgement from ${this.remote.host}:${this.remote.port}`));
  }

  /** Hands the inbox to the application on this host's CPU, in order, as far as it has handlers for. */
  private schedulePump(): void {
    this.fabric.clock.schedule(this.fabric.clock.now(), () => this.pump(), this.host);
  }

  private pump(): void {
    while (this.inbox.length > 0 && !this.closed) {
      const chunk = this.inbox[0]!;
      if (chunk.bytes && !this.dataHandler) return;
      this.inbox.shift();
      if (chunk.bytes) {
        this.dataHandler!(chunk.bytes);
        continue;
      }
      // The peer's FIN: Node ends this side too (allowHalfOpen false), and with both FINs through it is closed.
      this.endHandler?.();
      this.sendFinOnce();
      this.finish(undefined);
    }
  }

  /** Closed now; onClose runs on a later task, as Node emits 'close' after the call that caused it. */
  private finish(error: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.host.open.delete(this);
    this.release();
    const handler = this.closeHandler;
    if (handler) this.fabric.clock.schedule(this.fabric.clock.now(), () => handler(error), this.host);
  }
}

/** Both ends of a new connection; the client's frees its ephemeral port when it closes. */
export function openPair(
  fabric: Fabric,
  client: { host: VirtualHost; local: SocketAddress; release: () => void },
  server: { host: VirtualHost; local: SocketAddress },
): [StreamEnd, StreamEnd] {
  const clientEnd = new StreamEnd(fabric, client.host, client.local, server.local, client.release);
  const serverEnd = new StreamEnd(fabric, server.host, server.local, client.local);
  clientEnd.peer = serverEnd;
  serverEnd.peer = clientEnd;
  return [clientEnd, serverEnd];
}
