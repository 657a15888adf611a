/**
 * A tiny hand-written BGP peer for the session tests, built on the real codec: it accepts or dials TCP connections
 * and lets a test send messages (or raw bytes) and wait for the ones the session sends. It has no state machine of
 * its own: each test scripts exactly what a router would do.
 */
import { createServer, Socket, type Server } from 'node:net';
import { Afi, Safi, type BgpMessage, type BgpOpen, type Capability } from '../../../../src/announce/bgp/bgp-messages';
import { BgpMessageReader, encodeMessage } from '../../../../src/announce/bgp/codec';
import { openListenSocket, setMd5Key } from '../../../../src/native/tcp-md5';
import { createMd5Socket } from '../../../../src/runtime/real-signed-tcp';

export const ROUTER_ASN = 64512;
export const ROUTER_ID = '10.255.0.1';
const WAIT_MS = 10_000;

export function routerOpen(over: Partial<BgpOpen> = {}, asn = ROUTER_ASN): BgpOpen {
  const capabilities: Capability[] = [
    { code: 'multiprotocol', afi: Afi.ipv4, safi: Safi.unicast },
    { code: 'routeRefresh' },
    { code: 'fourOctetAsn', asn },
  ];
  return { type: 'open', version: 4, myAs: asn, holdTimeSeconds: 90, bgpIdentifier: ROUTER_ID, capabilities, ...over };
}

/** One TCP connection of the test peer. */
export class PeerConnection {
  readonly received: BgpMessage[] = [];
  decodeError: string | undefined;
  private cursor = 0;
  private readonly reader = new BgpMessageReader({ fourOctetAsn: true });
  private readonly waiters = new Set<() => void>();
  readonly closed: Promise<void>;
  private ended = false;

  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      const result = this.reader.push(chunk);
      this.received.push(...result.messages);
      if (result.error) this.decodeError = result.error.reason;
      this.wake();
    });
    socket.on('error', () => {});
    this.closed = new Promise((resolve) =>
      socket.on('close', () => {
        this.ended = true;
        this.wake();
        resolve();
      }),
    );
  }

  get isClosed(): boolean {
    return this.ended;
  }

  send(message: BgpMessage): void {
    this.socket.write(encodeMessage(message, { fourOctetAsn: true }));
  }

  sendRaw(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  /** The next message of `type` after the ones already taken (others are skipped); rejects if the connection ends first. */
  next<T extends BgpMessage['type']>(type: T, timeoutMs = WAIT_MS): Promise<Extract<BgpMessage, { type: T }>> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        while (this.cursor < this.received.length) {
          const m = this.received[this.cursor++]!;
          if (m.type === type) {
            done();
            resolve(m as Extract<BgpMessage, { type: T }>);
            return true;
          }
        }
        if (this.ended) {
          done();
          reject(new Error(`the connection closed before a ${type} arrived (got: ${this.received.map((m) => m.type).join(', ')})`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${type} within ${timeoutMs} ms (got: ${this.received.map((m) => m.type).join(', ')})`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      if (!check()) this.waiters.add(check);
    });
  }

  /** What a router does on a new connection: its OPEN, then KEEPALIVE once ours arrived. Returns our OPEN. */
  async handshake(open: BgpOpen = routerOpen()): Promise<BgpOpen> {
    this.send(open);
    const theirs = await this.next('open');
    this.send({ type: 'keepalive' });
    await this.next('keepalive');
    return theirs;
  }

  close(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const check of [...this.waiters]) check();
  }
}

/** The test peer's listener: the session dials it. With a password, SYNs from `md5Peer` must be signed. */
export class PeerServer {
  private readonly server: Server;
  private readonly pending: PeerConnection[] = [];
  private readonly waiters: ((c: PeerConnection) => void)[] = [];
  readonly connections: PeerConnection[] = [];

  constructor() {
    this.server = createServer((socket) => {
      const connection = new PeerConnection(socket);
      this.connections.push(connection);
      const waiter = this.waiters.shift();
      if (waiter) waiter(connection);
      else this.pending.push(connection);
    });
  }

  async listen(host: string, port = 0, md5?: { peer: string; password: string }): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      const done = (): void => resolve();
      if (md5) {
        const fd = openListenSocket(host, port);
        setMd5Key(fd, md5.peer, md5.password);
        this.server.listen({ fd }, done);
      } else {
        this.server.listen({ host, port }, done);
      }
    });
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  nextConnection(timeoutMs = WAIT_MS): Promise<PeerConnection> {
    const ready = this.pending.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(take);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(new Error(`no connection within ${timeoutMs} ms`));
      }, timeoutMs);
      const take = (c: PeerConnection): void => {
        clearTimeout(timer);
        resolve(c);
      };
      this.waiters.push(take);
    });
  }

  async close(): Promise<void> {
    for (const c of this.connections) c.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The test peer dialing the session's listener (from `localAddress`), MD5-signed with a password. */
export function dialSession(
  host: string,
  port: number,
  options: { localAddress?: string; password?: string } = {},
): Promise<PeerConnection> {
  const socket =
    options.password !== undefined
      ? createMd5Socket({
          peerAddress: host,
          password: options.password,
          ...(options.localAddress ? { localAddress: options.localAddress } : {}),
        })
      : new Socket();
  const bindHere = options.password === undefined && options.localAddress !== undefined;
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.connect({ host, port, ...(bindHere ? { localAddress: options.localAddress } : {}) }, () => {
      socket.off('error', reject);
      resolve(new PeerConnection(socket));
    });
  });
}
