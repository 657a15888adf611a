/**
 * One TCP connection of a BGP session: dialing it (from the source address, with a timeout, MD5-signed when there
 * is a password), framing its byte stream into messages with the codec's reader, writing encoded messages, and
 * closing it once what was written is flushed. It reports what happens to the shell (bgp-session.ts) and decides
 * nothing itself.
 */
import type { BgpMessage } from '../bgp-messages';
import { BgpMessageReader, type BgpDecodeError } from '../codec';
import { NetworkError } from '../../../runtime/network-error';
import type { ByteStream, Scheduler, Timer } from '../../../runtime/runtime';
import type { SignedTcpNetwork } from '../../../runtime/signed-tcp';
import { plainAddress } from './bgp-listener';

/** After our FIN the peer normally closes at once (it read our NOTIFICATION); a peer that does not is cut off. */
const CLOSE_LINGER_MS = 2_000;

export interface DialTarget {
  readonly host: string;
  readonly port: number;
  readonly localAddress?: string;
  readonly password?: string;
}

export interface ConnectionHandlers {
  onConnected(): void;
  onMessage(message: BgpMessage): void;
  onDecodeError(error: BgpDecodeError): void;
  /** The connection ended without our asking: `connected` false means the dial failed. */
  onEnd(connected: boolean, error: string | undefined): void;
}

/** What a failed dial says: the system's words (connect ECONNREFUSED ...), the timeout as the session's own. */
function dialFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof NetworkError && error.code === 'dialTimeout') return timeoutText(timeoutMs);
  if (error instanceof NetworkError && error.cause instanceof Error) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}

function timeoutText(timeoutMs: number): string {
  return `no answer within ${timeoutMs} ms (dial timeout)`;
}

export class SessionConnection {
  /**
   * The codec options of this connection. The reader reads them for every message, so flipping fourOctetAsn once
   * the OPENs are exchanged takes effect for the first UPDATE (which cannot come before our KEEPALIVE).
   */
  readonly codec = { fourOctetAsn: true };
  private readonly reader = new BgpMessageReader(this.codec);
  private connected: boolean;
  private closing = false;
  private closed = false;
  private error: string | undefined;
  private dialTimer: Timer | undefined;
  private lingerTimer: Timer | undefined;
  private readonly closeWaiters: (() => void)[] = [];
  /** Unset until the dial succeeds (or from the start, for an accepted connection). */
  private stream: ByteStream | undefined;
  /** Gives up a dial in flight: our dial timeout, or close() before it connected. */
  private readonly giveUp = new AbortController();

  private constructor(
    readonly id: string,
    connected: boolean,
    private readonly handlers: ConnectionHandlers,
    private readonly scheduler: Scheduler,
  ) {
    this.connected = connected;
  }

  /**
   * Dials `target` over `net`, giving up after `timeoutMs` on `scheduler`'s clock; a failure to even create the
   * socket (a bad MD5 key) is reported asynchronously like any other.
   */
  static dial(
    id: string,
    target: DialTarget,
    timeoutMs: number,
    handlers: ConnectionHandlers,
    scheduler: Scheduler,
    net: SignedTcpNetwork,
  ): SessionConnection {
    const connection = new SessionConnection(id, false, handlers, scheduler);
    connection.dialTimer = scheduler.after(timeoutMs, () => {
      connection.error = timeoutText(timeoutMs);
      connection.giveUp.abort();
    });
    const { host, port, localAddress, password } = target;
    net
      .connectSigned(
        { host, port },
        {
          timeoutMs,
          signal: connection.giveUp.signal,
          ...(localAddress !== undefined ? { localAddress } : {}),
          ...(password !== undefined ? { md5Password: password } : {}),
        },
      )
      .then(
        (stream) => connection.attach(stream),
        (error: unknown) => {
          connection.error ??= dialFailure(error, timeoutMs);
          connection.onClose();
        },
      );
    return connection;
  }

  /** Takes over a connection the listener accepted. */
  static adopt(id: string, stream: ByteStream, handlers: ConnectionHandlers, scheduler: Scheduler): SessionConnection {
    const connection = new SessionConnection(id, true, handlers, scheduler);
    connection.attach(stream);
    return connection;
  }

  get localAddress(): string {
    return plainAddress(this.stream?.local.host);
  }

  get remoteAddress(): string {
    return plainAddress(this.stream?.remote.host);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  write(bytes: Uint8Array): void {
    if (this.closing || this.closed) return;
    this.stream?.write(bytes);
  }

  /** Ends the connection after the written bytes are flushed (a dial in progress is dropped); resolves once closed. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.closeWaiters.push(resolve));
    if (this.closing) return done;
    this.closing = true;
    this.dialTimer?.cancel();
    const stream = this.stream;
    if (!this.connected || !stream) {
      this.giveUp.abort();
      stream?.destroy();
    } else {
      stream.end();
      this.lingerTimer = this.scheduler.after(CLOSE_LINGER_MS, () => stream.destroy());
    }
    return done;
  }

  /** A dialed connection that connected, or an accepted one: read it, and hear its end. */
  private attach(stream: ByteStream): void {
    this.stream = stream;
    stream.onData((chunk) => this.onData(chunk));
    // The peer's FIN: BGP has no use for a half-open connection, so ours follows at once.
    stream.onEnd(() => stream.end());
    stream.onClose((error) => {
      if (error) this.error ??= error.message;
      this.onClose();
    });
    if (this.connected) return;
    this.dialTimer?.cancel();
    this.connected = true;
    if (this.closing) stream.destroy();
    else this.handlers.onConnected();
  }

  private onData(chunk: Uint8Array): void {
    if (this.closing) return;
    const result = this.reader.push(chunk);
    for (const message of result.messages) {
      if (this.closing) return;
      this.handlers.onMessage(message);
    }
    if (result.error && !this.closing) this.handlers.onDecodeError(result.error);
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.dialTimer?.cancel();
    this.lingerTimer?.cancel();
    if (!this.closing) this.handlers.onEnd(this.connected, this.error);
    for (const resolve of this.closeWaiters.splice(0)) resolve();
  }
}
