/**
 * One TCP connection of a BGP session: dialing it (from the source address, with a timeout, MD5-signed when there
 * is a password), framing its byte stream into messages with the codec's reader, writing encoded messages, and
 * closing it once what was written is flushed. It reports what happens to the shell (bgp-session.ts) and decides
 * nothing itself.
 */
import { Socket } from 'node:net';
import type { BgpMessage } from '../bgp-messages';
import { BgpMessageReader, type BgpDecodeError } from '../codec';
import { createMd5Socket } from '../../../native/tcp-md5';
import type { Scheduler, Timer } from '../../../runtime/runtime';
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

  private constructor(
    readonly id: string,
    private readonly socket: Socket,
    connected: boolean,
    private readonly handlers: ConnectionHandlers,
    private readonly scheduler: Scheduler,
  ) {
    this.connected = connected;
    socket.on('connect', () => this.onConnect());
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) => {
      this.error ??= error.message;
    });
    socket.on('close', () => this.onClose());
    if (connected) socket.setNoDelay(true);
  }

  /**
   * Dials `target`, giving up after `timeoutMs` on `scheduler`'s clock; a failure to even create the socket (bad MD5
   * key) is reported asynchronously like any other.
   */
  static dial(id: string, target: DialTarget, timeoutMs: number, handlers: ConnectionHandlers, scheduler: Scheduler): SessionConnection {
    let socket: Socket;
    let setupError: string | undefined;
    try {
      const { host: peerAddress, password, localAddress } = target;
      socket =
        password !== undefined
          ? createMd5Socket({ peerAddress, password, ...(localAddress !== undefined ? { localAddress } : {}) })
          : new Socket();
    } catch (error) {
      socket = new Socket();
      setupError = (error as Error).message;
    }
    const connection = new SessionConnection(id, socket, false, handlers, scheduler);
    if (setupError !== undefined) {
      connection.error = setupError;
      setImmediate(() => socket.destroy());
      return connection;
    }
    connection.dialTimer = scheduler.after(timeoutMs, () => {
      connection.error = `no answer within ${timeoutMs} ms (dial timeout)`;
      socket.destroy();
    });
    // An MD5 socket is already bound to the source address (the key had to be set before connect).
    const bindHere = target.password === undefined && target.localAddress !== undefined;
    socket.connect({ host: target.host, port: target.port, ...(bindHere ? { localAddress: target.localAddress } : {}) });
    return connection;
  }

  /** Takes over a connection the listener accepted. */
  static adopt(id: string, socket: Socket, handlers: ConnectionHandlers, scheduler: Scheduler): SessionConnection {
    return new SessionConnection(id, socket, true, handlers, scheduler);
  }

  get localAddress(): string {
    return plainAddress(this.socket.localAddress);
  }

  get remoteAddress(): string {
    return plainAddress(this.socket.remoteAddress);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  write(bytes: Uint8Array): void {
    if (this.closing || this.closed) return;
    this.socket.write(bytes);
  }

  /** Ends the connection after the written bytes are flushed (a dial in progress is dropped); resolves once closed. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.closeWaiters.push(resolve));
    if (this.closing) return done;
    this.closing = true;
    this.dialTimer?.cancel();
    if (!this.connected) {
      this.socket.destroy();
    } else {
      this.socket.end();
      this.lingerTimer = this.scheduler.after(CLOSE_LINGER_MS, () => this.socket.destroy());
    }
    return done;
  }

  private onConnect(): void {
    this.dialTimer?.cancel();
    this.connected = true;
    this.socket.setNoDelay(true);
    if (!this.closing) this.handlers.onConnected();
  }

  private onData(chunk: Buffer): void {
    if (this.closing) return;
    const result = this.reader.push(chunk);
    for (const message of result.messages) {
      if (this.closing) return;
      this.handlers.onMessage(message);
    }
    if (result.error && !this.closing) this.handlers.onDecodeError(result.error);
  }

  private onClose(): void {
    this.closed = true;
    this.dialTimer?.cancel();
    this.lingerTimer?.cancel();
    if (!this.closing) this.handlers.onEnd(this.connected, this.error);
    for (const resolve of this.closeWaiters.splice(0)) resolve();
  }
}
