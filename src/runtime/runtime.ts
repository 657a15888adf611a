/**
 * The runtime seam: everything a protocol shell needs from the outside world (time, timers, randomness and the
 * network) behind one interface, so the same shell runs on real sockets and wall-clock time (real-runtime.ts) or
 * in one process on virtual time with an in-memory network that carries the same bytes (virtual/). memberlist's
 * Transport / MockTransport split is the model: the shells never construct a socket or a timer themselves.
 */

/** A socket address: canonical IP text and port. */
export interface SocketAddress {
  readonly host: string;
  readonly port: number;
}

/** A scheduled callback; cancelling twice, or after it ran, does nothing. */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Epoch milliseconds: the `now` every reducer is stepped with. */
  now(): number;
}

export interface Scheduler {
  /**
   * Runs `fire` once `now()` has reached `at`, never before (a real timer that fires a hair early is re-armed),
   * and after the sockets that were already readable have been read: a reply waiting in a buffer is seen before
   * the deadline it answers (a starved event loop runs due timers before it polls I/O).
   */
  at(at: number, fire: () => void): Timer;
  /** Runs `fire` after `ms` milliseconds. */
  after(ms: number, fire: () => void): Timer;
  /** Runs `fire` every `ms` milliseconds until cancelled. */
  every(ms: number, fire: () => void): Timer;
}

export interface Randomness {
  /** A uniform integer in [0, maxExclusive). */
  randomInt(maxExclusive: number): number;
  /** A uniform float in [0, 1). */
  random(): number;
}

/** One UDP socket, bound. Send failures go to the endpoint's error handler, never thrown. */
export interface UdpEndpoint {
  readonly local: SocketAddress;
  send(to: SocketAddress, bytes: Uint8Array): void;
  close(): Promise<void>;
}

export interface UdpHandlers {
  /** A datagram arrived. */
  onMessage(bytes: Uint8Array, from: SocketAddress): void;
  /** A socket-level problem worth a log line (a send that failed); never fatal by itself. */
  onError?(error: Error): void;
}

/** A listening TCP socket. */
export interface TcpListener {
  readonly local: SocketAddress;
  close(): Promise<void>;
}

/** One direction-agnostic TCP connection: bytes in, bytes out. */
export interface ByteStream {
  readonly local: SocketAddress;
  readonly remote: SocketAddress;
  /** Each chunk as it arrives; set once, before the first chunk can arrive (the turn the stream is handed over). */
  onData(handler: (chunk: Uint8Array) => void): void;
  /** The peer finished writing (FIN). */
  onEnd(handler: () => void): void;
  /** The connection is gone (after end, destroy, reset or error); called once. */
  onClose(handler: (error?: Error) => void): void;
  write(bytes: Uint8Array): void;
  /** Writes `bytes` (if any), then FIN; `flushed` runs once they left. */
  end(bytes?: Uint8Array, flushed?: () => void): void;
  /** Closes at once, dropping anything unsent. */
  destroy(): void;
}

export interface DialOptions {
  /** Fails the dial when no connection is made within this many ms. */
  readonly timeoutMs: number;
  /** Binds the connection's source address first. */
  readonly localAddress?: string;
}

export interface Network {
  bindUdp(bind: SocketAddress, handlers: UdpHandlers): Promise<UdpEndpoint>;
  /** Port 0 picks a free one. */
  listenTcp(bind: SocketAddress, onConnection: (stream: ByteStream) => void, onError?: (error: Error) => void): Promise<TcpListener>;
  connectTcp(to: SocketAddress, options: DialOptions): Promise<ByteStream>;
}

/** Everything a protocol shell is handed instead of reaching for globals. */
export interface Runtime extends Clock, Scheduler, Randomness {
  readonly net: Network;
}
