/**
 * BfdEndpoint: single-hop BFD on one local address (RFC 5881). One receive socket (UDP 3784 on that address) for
 * every session; each received packet is decoded (bfd-packet.ts), TTL-checked, matched to its session by Your
 * Discriminator, or by source address while Your Discriminator is 0 (RFC 5880 section 6.8.6, RFC 5881 section 3),
 * and handed to it. Anything refused is counted by reason, never thrown.
 *
 *   const endpoint = await BfdEndpoint.open({ localAddress: '10.0.0.2', logger });
 *   const session = endpoint.session({ peer: parseIP('10.0.0.1')!, profile });   // a BFDProfile, or {}
 *   session.on('up', ...); session.on('down', (e) => { if (e.failure) bgp.close(); });
 *   await session.start();   ...   await session.stop();   // AdminDown, then gone
 *   await endpoint.close();  // every socket closed at once, no AdminDown (what a crash looks like to peers)
 */
import { formatIP, ipEquals, parseIP, type IP } from '../../ip';
import { emptyDropCounters, type BfdDropReason } from './bfd-drop-reasons';
import { BfdError } from './bfd-error';
import { decodeBfdControl, UINT32_MAX } from './bfd-packet';
import { BfdSession, type BfdSessionHost } from './bfd-peer';
import type { BfdProfileInput } from './bfd-profile';
import { REAL_RUNTIME } from '../../runtime/real-runtime';
import type { Runtime } from '../../runtime/runtime';
import type { TtlUdpNetwork } from '../../runtime/ttl-udp';
import {
  BFD_CONTROL_PORT,
  BFD_TTL,
  openBfdReceiveSocket,
  openBfdTransmitSocket,
  type BfdDatagram,
  type BfdReceiveSocket,
  type TtlCheck,
} from './bfd-socket';
import { type Log, SILENT_LOG } from '../../runtime/log';

export interface BfdEndpointOptions {
  /** The address sessions run from: the BGP session's local address. */
  readonly localAddress: IP | string;
  readonly logger?: Log;
  /** Receive port; 3784 unless a test runs several endpoints on one address. */
  readonly port?: number;
  /** Peers' port; 3784 likewise. */
  readonly peerPort?: number;
  /** Use a socket that cannot read the TTL (no TTL check) even when the TTL addon is there: to test the fallback. */
  readonly withoutTtlAddon?: boolean;
  /**
   * The clock and timers sessions run on, and the randomness for jitter, source ports and discriminators
   * (REAL_RUNTIME by default).
   */
  readonly runtime?: Runtime;
  /** The TTL-aware UDP sockets (the real ones, through the TTL addon, by default). */
  readonly udp?: TtlUdpNetwork;
}

export interface BfdSessionOptions {
  readonly peer: IP | string;
  /** A BFDProfile (or any of its fields); MetalLB's defaults for the rest. */
  readonly profile?: BfdProfileInput;
}

export interface BfdEndpointCounters {
  datagramsReceived: number;
  /** Handed to a session (which may still drop it: see the session's counters). */
  delivered: number;
  dropped: Record<BfdDropReason, number>;
}

/** Largest number of tries to draw an unused discriminator (2^32 values, a handful of sessions: one try). */
const MAX_DISCRIMINATOR_DRAWS = 1000;

function toIP(value: IP | string, what: string): IP {
  if (typeof value !== 'string') return value;
  const ip = parseIP(value);
  if (!ip) throw new BfdError('invalidAddress', `${what} is not an IP address: "${value}"`);
  return ip;
}

export class BfdEndpoint {
  readonly counters: BfdEndpointCounters = { datagramsReceived: 0, delivered: 0, dropped: emptyDropCounters() };
  private readonly byDiscriminator = new Map<number, BfdSession>();
  private readonly byPeer = new Map<string, BfdSession>();
  private socket: BfdReceiveSocket | undefined;
  private closed = false;
  private readonly logger: Log;
  private readonly runtime: Runtime;
  private readonly peerPort: number;
  private readonly udp: TtlUdpNetwork | undefined;

  private constructor(
    readonly localAddress: IP,
    options: BfdEndpointOptions,
  ) {
    this.logger = options.logger ?? SILENT_LOG;
    this.runtime = options.runtime ?? REAL_RUNTIME;
    this.peerPort = options.peerPort ?? BFD_CONTROL_PORT;
    this.udp = options.udp;
  }

  /** Binds UDP 3784 on the local address. Throws BfdError('bindFailed') when it cannot. */
  static async open(options: BfdEndpointOptions): Promise<BfdEndpoint> {
    const endpoint = new BfdEndpoint(toIP(options.localAddress, 'localAddress'), options);
    endpoint.socket = await openBfdReceiveSocket({
      address: formatIP(endpoint.localAddress),
      port: options.port ?? BFD_CONTROL_PORT,
      ...(options.withoutTtlAddon !== undefined ? { withoutAddon: options.withoutTtlAddon } : {}),
      ...(options.udp ? { udp: options.udp } : {}),
      onDatagram: (d) => endpoint.onDatagram(d),
      onError: (e) => endpoint.logger.warn({ event: 'bfdReceiveError', error: e.message }, 'BFD receive error'),
    });
    const fields = {
      event: 'bfdEndpointOpen',
      localAddress: formatIP(endpoint.localAddress),
      port: endpoint.socket.port,
      ttlCheck: endpoint.socket.ttlCheck,
    };
    if (endpoint.socket.ttlCheckGap)
      endpoint.logger.warn({ ...fields, why: endpoint.socket.ttlCheckGap }, 'BFD receive TTL check unavailable');
    else endpoint.logger.info(fields, 'BFD endpoint open');
    return endpoint;
  }

  /** 'enforced': packets with a TTL / Hop Limit other than 255 are dropped (RFC 5881 section 5). */
  get ttlCheck(): TtlCheck {
    return this.socket?.ttlCheck ?? 'unavailable';
  }

  get ttlCheckGap(): string | undefined {
    return this.socket?.ttlCheckGap;
  }

  /** The receive port (3784 unless options.port said otherwise). */
  get port(): number {
    return this.socket?.port ?? -1;
  }

  get sessions(): readonly BfdSession[] {
    return [...this.byPeer.values()];
  }

  sessionFor(peer: IP | string): BfdSession | undefined {
    return this.byPeer.get(formatIP(toIP(peer, 'peer')));
  }

  /** A new, unstarted session with `peer`; one per peer on an endpoint. */
  session(options: BfdSessionOptions): BfdSession {
    if (this.closed) throw new BfdError('closed', 'the BFD endpoint is closed');
    const peer = toIP(options.peer, 'peer');
    if (peer.family !== this.localAddress.family) {
      throw new BfdError('invalidAddress', `peer ${formatIP(peer)} is not of the local address's family (IPv${this.localAddress.family})`);
    }
    const key = formatIP(peer);
    if (this.byPeer.has(key))
      throw new BfdError('duplicateSession', `a BFD session with ${key} already exists on ${formatIP(this.localAddress)}`);
    const session = new BfdSession(this.hostFor(), peer, options.profile, this.newDiscriminator());
    this.byPeer.set(key, session);
    this.byDiscriminator.set(session.localDiscriminator, session);
    return session;
  }

  /** Closes every socket at once: sessions stop without AdminDown, so their peers time out (as on a crash). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const session of [...this.byPeer.values()]) session.abort();
    this.socket?.close();
  }

  private hostFor(): BfdSessionHost {
    const local = formatIP(this.localAddress);
    return {
      localAddressText: local,
      peerPort: this.peerPort,
      logger: this.logger,
      runtime: this.runtime,
      openTransmit: (onError) => {
        if (this.closed) return Promise.reject(new BfdError('closed', 'the BFD endpoint is closed'));
        const random = (): number => this.runtime.random();
        return openBfdTransmitSocket({ address: local, random, onError, ...(this.udp ? { udp: this.udp } : {}) });
      },
      release: (session) => {
        if (this.byPeer.get(session.peerText) === session) this.byPeer.delete(session.peerText);
        if (this.byDiscriminator.get(session.localDiscriminator) === session) this.byDiscriminator.delete(session.localDiscriminator);
      },
    };
  }

  /** bfd.LocalDiscr: nonzero and unique on this endpoint (RFC 5880 section 6.8.1); random, so hard to guess. */
  private newDiscriminator(): number {
    for (let i = 0; i < MAX_DISCRIMINATOR_DRAWS; i++) {
      const d = 1 + this.runtime.randomInt(UINT32_MAX - 1);
      if (!this.byDiscriminator.has(d)) return d;
    }
    throw new BfdError('duplicateSession', 'no free BFD discriminator');
  }

  private drop(reason: BfdDropReason, d: BfdDatagram, detail?: string): void {
    this.counters.dropped[reason]++;
    this.logger.debug({ event: 'bfdPacketDropped', reason, from: d.address, detail }, 'BFD packet dropped');
  }

  private onDatagram(d: BfdDatagram): void {
    this.counters.datagramsReceived++;
    const decoded = decodeBfdControl(d.payload);
    if (!decoded.ok) return this.drop(decoded.reason, d, decoded.detail);
    if (d.ttl !== undefined && d.ttl !== BFD_TTL) return this.drop('badTtl', d, `TTL ${d.ttl}`);
    const packet = decoded.value;
    const source = parseIP(d.address);
    let session: BfdSession | undefined;
    if (packet.yourDiscriminator !== 0) {
      session = this.byDiscriminator.get(packet.yourDiscriminator);
      if (!session) return this.drop('unknownDiscriminator', d, String(packet.yourDiscriminator));
      if (!source || !ipEquals(source, session.peer)) return this.drop('addressMismatch', d, `session peer ${session.peerText}`);
    } else {
      session = source ? this.byPeer.get(formatIP(source)) : undefined;
      if (!session) return this.drop('unknownPeer', d);
    }
    this.counters.delivered++;
    const dropped = session.receive(packet);
    if (dropped) this.drop(dropped, d);
  }
}
